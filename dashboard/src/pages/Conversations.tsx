// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function ConversationsPage() { return <PageHeader title="Conversations" />; }
export function ConversationPage() { return <PageHeader title="Conversations" />; }
