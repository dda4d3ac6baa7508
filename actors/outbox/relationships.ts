/** Deliveries about relationships between accounts (follow, block…). */
// deno-lint-ignore no-empty-interface
export interface RelationshipDeliveries {}
