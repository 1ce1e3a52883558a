/**
 * Event cost as the original formats it (calendar-api.md §4.5): the stored
 * value is what the client sent (a string or a list of strings); the record
 * shows a formatted range and `cost_details`.
 */
export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: "prefix" | "postfix" | "";
  values: string[];
}

export interface FormattedCost {
  cost: string;
  details: CostDetails;
}

const DEFAULT_SYMBOL = "$";
const NUMBER = /\d+(?:[.,]\d+)?/g;

export function normaliseCostInput(input: unknown): string[] {
  if (input === null || input === undefined) return [];
  const list = Array.isArray(input) ? input : [input];
  return list
    .filter((v): v is string | number => typeof v === "string" || typeof v === "number")
    .map((v) => String(v).trim())
    .filter((v) => v !== "");
}

export function formatCost(values: string[]): FormattedCost {
  const empty: FormattedCost = {
    cost: "",
    details: { currency_symbol: "", currency_code: "", currency_position: "", values: [] },
  };
  if (values.length === 0) return empty;

  const numbers: number[] = [];
  const numberText = new Map<number, string>();
  const symbols = new Set<string>();
  let position: "prefix" | "postfix" = "prefix";
  let symbolSeen = false;
  for (const raw of values) {
    const found = raw.match(NUMBER);
    if (!found) continue;
    for (const text of found) {
      const n = Number(text.replace(",", "."));
      numbers.push(n);
      if (!numberText.has(n)) numberText.set(n, text.replace(",", "."));
    }
    // The symbol is what is left once numbers and range separators are gone.
    const symbol = raw.replace(NUMBER, "").replace(/[\s\-–—~]+/g, "").trim();
    if (symbol !== "") {
      symbols.add(symbol);
      if (!symbolSeen) {
        position = raw.indexOf(symbol) < raw.search(/\d/) ? "prefix" : "postfix";
        symbolSeen = true;
      }
    }
  }

  if (numbers.length === 0) {
    // Non-numeric text ("Donation", "Free entry") is shown as given.
    return { cost: values.join(", "), details: { ...empty.details } };
  }

  const symbol = symbols.size === 1 ? [...symbols][0] : symbols.size === 0 ? DEFAULT_SYMBOL : "";
  if (symbols.size === 0) position = "prefix";
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const asText = (n: number): string => numberText.get(n) ?? String(n);
  const show = (n: number): string =>
    n === 0 ? "Free" : position === "prefix" ? `${symbol}${asText(n)}` : `${asText(n)}${symbol}`;
  const low = sorted[0];
  const high = sorted[sorted.length - 1];
  return {
    cost: low === high ? show(low) : `${show(low)} – ${show(high)}`,
    details: {
      currency_symbol: symbol,
      currency_code: "",
      currency_position: position,
      values: sorted.map(asText),
    },
  };
}
