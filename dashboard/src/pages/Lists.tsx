// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function ListsPage() { return <PageHeader title="Lists" />; }
export function ListPage() { return <PageHeader title="Lists" />; }
