// Child servers of the bench print one JSON line on stdout when they are ready; the parent reads it.
export function reportReady(info) {
  process.stdout.write(`${JSON.stringify({ ready: true, ...info })}\n`);
}
