// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function ApiKeysPage() { return <PageHeader title="ApiKeys" />; }
