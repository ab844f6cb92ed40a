// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function Overview() { return <PageHeader title="Overview" />; }
