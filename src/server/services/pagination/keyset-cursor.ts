import { AppError } from "../../errors/app-error";
import { isQueryableTime } from "../../../shared/schemas/common";

/**
 * The one keyset cursor of the API's lists (calls, usage; docs/decisions.md §11):
 * where a page ends in (createdAt, id) order, newest first. A page is one
 * index range read at any depth, and rows arriving meanwhile never shift the
 * pages after it. Opaque to clients (base64url), checked on the way in.
 */
export type KeysetCursor = { createdAt: Date; id: string };

export function encodeKeysetCursor(c: KeysetCursor): string {
  return Buffer.from(`${c.createdAt.toISOString()}|${c.id}`, "utf8").toString("base64url");
}

export function decodeKeysetCursor(cursor: string): KeysetCursor {
  const invalid = () =>
    new AppError("VALIDATION_FAILED", "The cursor is not one this API gave out.", {
      details: [{ path: "cursor", message: "invalid cursor" }],
    });
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  const bar = text.indexOf("|");
  if (bar < 0) throw invalid();
  const time = text.slice(0, bar);
  const id = text.slice(bar + 1);
  const createdAt = new Date(time);
  // A forged cursor's time must still be one PostgreSQL can compare with (year -271821 is not).
  if (
    Number.isNaN(createdAt.getTime()) ||
    !isQueryableTime(createdAt) ||
    createdAt.toISOString() !== time ||
    !/^[A-Za-z0-9_-]{1,64}$/.test(id)
  )
    throw invalid();
  return { createdAt, id };
}
