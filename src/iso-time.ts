/** The two-digit and three-digit forms of 0-99 and 0-999. */
const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: the first instant whose year takes more than four digits. */
const YEAR_10000_MS = 253_402_300_800_000;

/**
 * `date.toISOString()`, by arithmetic. V8 formats it through a printf-like string stream: about
 * 320 ns a date on Node 20 and 26, where this takes about 110, and a page of 20 activities writes
 * 40 of them. Instants before 1970 or from year 10000 on, and invalid dates (which throw), go to
 * toISOString.
 */
export function isoString(date: Date): string {
  const time = date.getTime();
  if (!(time >= 0 && time < YEAR_10000_MS)) return date.toISOString();
  const days = Math.floor(time / DAY_MS);
  let ms = time - days * DAY_MS;
  // The civil date of a day count (H. Hinnant's days_from_civil, inverted), in eras of 400 years
  // from 0000-03-01.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(ms / 3_600_000);
  ms -= hours * 3_600_000;
  const minutes = Math.floor(ms / 60_000);
  ms -= minutes * 60_000;
  const seconds = Math.floor(ms / 1000);
  ms -= seconds * 1000;
  return `${TWO[Math.floor(year / 100)]}${TWO[year % 100]}-${TWO[month]}-${TWO[day]}T${TWO[hours]}:${TWO[minutes]}:${TWO[seconds]}.${THREE[ms]}Z`;
}
