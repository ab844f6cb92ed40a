// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function MessagesPage() { return <PageHeader title="Messages" />; }
export function MessagePage() { return <PageHeader title="Messages" />; }
