// PLACEHOLDER: to be written
import { PageHeader } from '../components/ui.tsx';
export function CampaignsPage() { return <PageHeader title="Campaigns" />; }
export function CampaignPage() { return <PageHeader title="Campaigns" />; }
