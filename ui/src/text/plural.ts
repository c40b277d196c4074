/**
 * "1 exchange", "2 exchanges": a count with its noun in the right number (English: the plural
 * adds "s" unless given).
 */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : plural}`;
}
