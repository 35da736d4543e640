/** Why the action beside it is disabled (the account's standing), in words next to the control. */
export function ForbiddenReason({ reason, id }: { reason: string | null; id?: string }) {
  if (!reason) return null;
  return (
    <p id={id} className="text-xs font-medium text-amber-800 dark:text-amber-300" data-testid="forbidden-reason">
      {reason}
    </p>
  );
}
