// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function BillingPage() { return <PageHeader title="Billing" />; }
