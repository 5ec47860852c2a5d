/** Money and rates as the case sheet writes them: in text (notes, the conclusion) and as number formats. */

/** The minus sign of money on the sheet and in the page (U+2212, not a hyphen). */
export const MINUS = "\u2212";

/**
 * Whole currency units with grouping, e.g. "£273,554" or "CHF 1,200", at most 15 significant digits
 * (then zeros, as a spreadsheet shows it); negative with a true minus
 * sign (U+2212) before the symbol, "−£5", as the sheet's number format shows it; never "−£0".
 */
export function money(amount: number, currency: string): string {
  // 15 significant digits, as Excel and LibreOffice show a number (TEXT and number formats): the
  // conclusion's words then equal the sheet's recalculated ones for any amount.
  const whole = Number(Math.round(Math.abs(amount)).toPrecision(15)).toLocaleString("en-GB");
  const sign = amount < 0 && Math.round(Math.abs(amount)) !== 0 ? MINUS : "";
  return currency.length === 1 ? `${sign}${currency}${whole}` : `${sign}${currency} ${whole}`;
}

/** A rate as a percentage with up to two decimals: 0.1 → "10%", 0.075 → "7.5%". */
export function percent(rate: number): string {
  return `${Number((rate * 100).toFixed(2))}%`;
}

/** Money's number format: "£22,066", negative "−£22,066" (U+2212 before the symbol), zero "£0". */
export function currencyFormat(currency: string): string {
  const symbol = currency.length === 1 ? `"${currency}"` : `"${currency} "`;
  const minus = currency.length === 1 ? `"${MINUS}${currency}"` : `"${MINUS}${currency} "`;
  return `${symbol}#,##0;${minus}#,##0;${symbol}0`;
}

/**
 * A percentage's number format with a true minus sign, as money has: `percentFormat(1)` shows −0.052
 * as "−5.2%" (not "-5.2%"), 0.1 as "10.0%".
 */
export function percentFormat(decimals: number): string {
  const digits = decimals > 0 ? "0." + "0".repeat(decimals) : "0";
  return `${digits}%;"${MINUS}"${digits}%`;
}
