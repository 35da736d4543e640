import type { Metadata } from "next";
import { NumberDetails } from "./number-details";

export const metadata: Metadata = { title: "Number · Routekit" };

export default async function NumberPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <NumberDetails id={id} />;
}
