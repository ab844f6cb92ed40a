// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function WebhooksPage() { return <PageHeader title="Webhooks" />; }
export function WebhookPage() { return <PageHeader title="Webhooks" />; }
