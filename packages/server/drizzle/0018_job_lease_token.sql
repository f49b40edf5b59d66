-- A token per job claim (job-queue.ts): a holder whose lease ran out and whose job another worker took over can
-- no longer delete, reschedule or renew it; only the statements of the claim holding the job match its row.
ALTER TABLE "jobs" ADD COLUMN "lease" uuid;
