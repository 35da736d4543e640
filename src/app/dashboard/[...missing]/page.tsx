import { notFound } from "next/navigation";

// Any dashboard path no page claims: the 404 renders inside the shell (dashboard/not-found.tsx), with the navigation to go on.
export default function MissingDashboardPage(): never {
  notFound();
}
