/**
 * A line-based diff for showing two short documents side by side (docs/decisions.md §23: the primary's and the
 * shadow's TwiML, a call's original and replayed answers). A longest common subsequence over the lines that
 * remain after the common head and tail are set aside; TwiML is at most 64 KiB, and past `MAX_CELLS` pairs of
 * differing lines the middle is shown as all removed then all added, which is still true, only less precise.
 */
export type DiffLine =
  | { kind: "same"; text: string; a: number; b: number }
  | { kind: "removed"; text: string; a: number }
  | { kind: "added"; text: string; b: number };

/** One row of the side-by-side view: what the left (a) and right (b) columns show; a missing side is a gap. */
export type DiffRow = { a?: DiffLine & { kind: "same" | "removed" }; b?: DiffLine & { kind: "same" | "added" } };

const MAX_CELLS = 4_000_000;

/** The lines of `a` and `b` in order, each `same`, `removed` (only in a) or `added` (only in b); numbers from 1. */
export function lineDiff(a: readonly string[], b: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: "same", text: a[i]!, a: i + 1, b: i + 1 });
  middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail), head, out);
  for (let k = tail; k > 0; k--) {
    const i = a.length - k;
    const j = b.length - k;
    out.push({ kind: "same", text: a[i]!, a: i + 1, b: j + 1 });
  }
  return out;
}

/** The LCS table walked from the front: at each step, keep a common line, else drop the side whose rest keeps more. */
function middle(a: readonly string[], b: readonly string[], offset: number, out: DiffLine[]): void {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) {
    for (let i = 0; i < n; i++) out.push({ kind: "removed", text: a[i]!, a: offset + i + 1 });
    for (let j = 0; j < m; j++) out.push({ kind: "added", text: b[j]!, b: offset + j + 1 });
    return;
  }
  // keep[i][j]: the length of the longest common subsequence of a[i..] and b[j..], row by row in one array.
  const w = m + 1;
  const keep = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      keep[i * w + j] =
        a[i] === b[j] ? keep[(i + 1) * w + j + 1]! + 1 : Math.max(keep[(i + 1) * w + j]!, keep[i * w + j + 1]!);
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: "same", text: a[i]!, a: offset + i + 1, b: offset + j + 1 });
      i++;
      j++;
    } else if (j >= m || (i < n && keep[(i + 1) * w + j]! >= keep[i * w + j + 1]!)) {
      out.push({ kind: "removed", text: a[i]!, a: offset + i + 1 });
      i++;
    } else {
      out.push({ kind: "added", text: b[j]!, b: offset + j + 1 });
      j++;
    }
  }
}

/**
 * The diff as rows of two columns: common lines side by side, and each run of changes with its removed lines
 * beside its added ones, the shorter side padded with gaps.
 */
export function sideBySide(diff: readonly DiffLine[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let removed: DiffRow["a"][] = [];
  let added: DiffRow["b"][] = [];
  const flush = () => {
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const row: DiffRow = {};
      if (removed[k]) row.a = removed[k];
      if (added[k]) row.b = added[k];
      rows.push(row);
    }
    removed = [];
    added = [];
  };
  for (const line of diff) {
    if (line.kind === "removed") removed.push(line);
    else if (line.kind === "added") added.push(line);
    else {
      flush();
      rows.push({ a: line, b: line });
    }
  }
  flush();
  return rows;
}
