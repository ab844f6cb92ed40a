// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function DomainsPage() { return <PageHeader title="Domains" />; }
export function EmailDomainPage() { return <PageHeader title="Domains" />; }
