/**
 * Admin::Measure, Admin::Dimension and Admin::Cohort, as Mastodon renders
 * them: figures as strings, dates as ISO 8601 (measures with `Z`, cohorts
 * with `+00:00`), a measure's human_value only when it has a unit.
 */
import type { MeasureResult } from "../../actors/admin_metrics/measures.ts";
import { type DimensionItem, humanSize } from "../../actors/admin_metrics/dimensions.ts";
import type { Cohort } from "../../actors/admin_metrics/retention.ts";

const iso = (d: Date) => d.toISOString().replace(/\.000Z$/, "Z");
const isoOffset = (d: Date) => d.toISOString().replace(/\.000Z$/, "+00:00");

export function serializeMeasure(m: MeasureResult) {
  return {
    key: m.key,
    unit: m.unit,
    total: String(m.total),
    ...(m.unit === "bytes" ? { human_value: humanSize(m.total) } : {}),
    previous_total: String(m.previousTotal),
    data: m.data.map((d) => ({ date: iso(d.date), value: String(d.value) })),
  };
}

export function serializeDimension(key: string, items: DimensionItem[]) {
  return {
    key,
    data: items.map((i) => ({
      key: i.key,
      human_key: i.humanKey,
      value: i.value,
      ...(i.unit ? { unit: i.unit } : {}),
      ...(i.humanValue ? { human_value: i.humanValue } : {}),
    })),
  };
}

export function serializeCohort(c: Cohort) {
  return {
    period: isoOffset(c.period),
    frequency: c.frequency,
    data: c.data.map((d) => ({ date: isoOffset(d.date), rate: d.rate, value: String(d.value) })),
  };
}
