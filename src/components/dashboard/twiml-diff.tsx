import { useId, useMemo } from "react";
import { type DiffRow, lineDiff, sideBySide } from "@/shared/line-diff";
import { prettyTwiml } from "@/shared/pretty-twiml";

type Side = { title: string; twiml: string | null };

/**
 * Two TwiML documents side by side (docs/decisions.md §23), each laid out one element a line, with what differs
 * marked: a line only on the left starts with −, a line only on the right with +, and a screen reader hears
 * "removed" or "added" before it. Colour only repeats what the marks say. The lines wrap, so the table never
 * widens the page; a missing document (no answer) is said in words in its column.
 */
export function TwimlDiff({ a, b, "data-testid": testId }: { a: Side; b: Side; "data-testid"?: string }) {
  const captionId = useId();
  const { rows, removed, added } = useMemo(() => {
    const diff = lineDiff(prettyTwiml(a.twiml ?? ""), prettyTwiml(b.twiml ?? ""));
    return {
      rows: sideBySide(diff),
      removed: diff.filter((l) => l.kind === "removed").length,
      added: diff.filter((l) => l.kind === "added").length,
    };
  }, [a.twiml, b.twiml]);
  const summary =
    removed + added === 0
      ? "The two lay out the same, line for line."
      : `${count(removed, "line")} only in ${a.title} (−), ${count(added, "line")} only in ${b.title} (+).`;
  return (
    <figure className="min-w-0" data-testid={testId}>
      <figcaption
        id={captionId}
        className="text-xs text-slate-600 dark:text-slate-300"
        data-testid="twiml-diff-summary"
      >
        {summary}
      </figcaption>
      <table
        aria-describedby={captionId}
        className="mt-2 w-full table-fixed border-collapse overflow-hidden rounded-md border border-slate-200 font-mono text-xs dark:border-slate-700"
      >
        <caption className="sr-only">{`${a.title} beside ${b.title}`}</caption>
        <colgroup>
          <col className="w-7" />
          <col />
          <col className="w-7" />
          <col />
        </colgroup>
        <thead className="bg-slate-50 font-sans dark:bg-slate-800/60">
          <tr>
            <th
              scope="col"
              colSpan={2}
              className="px-2 py-1 text-left font-semibold text-slate-700 dark:text-slate-200"
            >
              {a.title}
            </th>
            <th
              scope="col"
              colSpan={2}
              className="border-l border-slate-200 px-2 py-1 text-left font-semibold text-slate-700 dark:border-slate-700 dark:text-slate-200"
            >
              {b.title}
            </th>
          </tr>
        </thead>
        <tbody>
          {a.twiml === null || b.twiml === null ? (
            <tr>
              <td colSpan={2} className="px-2 py-1 font-sans text-slate-500 dark:text-slate-400">
                {a.twiml === null ? "No TwiML" : null}
              </td>
              <td
                colSpan={2}
                className="border-l border-slate-200 px-2 py-1 font-sans text-slate-500 dark:border-slate-700 dark:text-slate-400"
              >
                {b.twiml === null ? "No TwiML" : null}
              </td>
            </tr>
          ) : null}
          {rows.map((row) => (
            <tr key={`${row.a?.a ?? "-"}:${row.b?.b ?? "-"}`} data-testid="twiml-diff-row">
              <Cells line={row.a} side="a" />
              <Cells line={row.b} side="b" />
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

const KIND_STYLE = {
  same: "text-slate-700 dark:text-slate-300",
  removed: "bg-red-50 text-red-900 dark:bg-red-950/40 dark:text-red-100",
  added: "bg-green-50 text-green-900 dark:bg-green-950/40 dark:text-green-100",
} as const;

function Cells({ line, side }: { line: DiffRow["a"] | DiffRow["b"]; side: "a" | "b" }) {
  const border = side === "b" ? "border-l border-slate-200 dark:border-slate-700" : "";
  if (!line) return <td colSpan={2} className={`bg-slate-50/60 dark:bg-slate-800/30 ${border}`} />;
  const n = line.kind === "same" ? (side === "a" ? line.a : line.b) : line.kind === "removed" ? line.a : line.b;
  const mark = line.kind === "removed" ? "−" : line.kind === "added" ? "+" : " ";
  return (
    <>
      <td className={`select-none px-1 py-0.5 text-right align-top text-slate-500 dark:text-slate-400 ${border}`}>
        {n}
      </td>
      <td className={`px-1 py-0.5 align-top ${KIND_STYLE[line.kind]}`} data-kind={line.kind} data-side={side}>
        <span className="whitespace-pre-wrap break-all">
          <span aria-hidden="true" className="mr-1 font-semibold">
            {mark}
          </span>
          {line.kind === "same" ? null : <span className="sr-only">{`${line.kind}: `}</span>}
          {line.text}
        </span>
      </td>
    </>
  );
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}
