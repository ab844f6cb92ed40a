// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function ContactsPage() { return <PageHeader title="Contacts" />; }
export function ContactPage() { return <PageHeader title="Contacts" />; }
