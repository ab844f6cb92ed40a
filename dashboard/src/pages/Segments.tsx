// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function SegmentsPage() { return <PageHeader title="Segments" />; }
export function SegmentEditor() { return <PageHeader title="Segments" />; }
