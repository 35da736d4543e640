"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { day } from "@/shared/format";

type Day = { date: string; calls: number; billedMinutes: number; totalCost: number };

/** Bars for people; the same figures as a table for screen readers (and tests). */
export function MinutesChart({ days }: { days: Day[] }) {
  const data = days.map((d) => ({ ...d, label: day(d.date) }));
  const total = days.reduce((sum, d) => sum + d.billedMinutes, 0);
  return (
    <figure data-testid="minutes-chart" data-total-minutes={total}>
      <div className="h-56 w-full" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          {/* The chart is hidden from assistive technology (the table below says the same), so it takes no focus either. */}
          <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="currentColor" strokeOpacity={0.15} />
            <XAxis
              dataKey="label"
              tick={{ fontSize: 11, fill: "#64748b" }}
              interval="preserveStartEnd"
              minTickGap={16}
            />
            <YAxis allowDecimals={false} tick={{ fontSize: 11, fill: "#64748b" }} />
            <Tooltip formatter={(v) => [`${String(v)} min`, "Billed"]} labelStyle={{ color: "#0f172a" }} />
            <Bar dataKey="billedMinutes" fill="#4f46e5" radius={[3, 3, 0, 0]} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="mt-2 text-xs text-slate-500 dark:text-slate-400">
        {total ? `${total} billed minutes in the last 30 days.` : "No billed minutes in the last 30 days."}
      </figcaption>
      <table className="sr-only">
        <caption>Billed minutes per day</caption>
        <thead>
          <tr>
            <th>Day</th>
            <th>Calls</th>
            <th>Billed minutes</th>
          </tr>
        </thead>
        <tbody>
          {days
            .filter((d) => d.calls > 0)
            .map((d) => (
              <tr key={d.date} data-testid={`chart-day-${d.date}`}>
                <td>{d.date}</td>
                <td>{d.calls}</td>
                <td>{d.billedMinutes}</td>
              </tr>
            ))}
        </tbody>
      </table>
    </figure>
  );
}
