/**
 * The example cases the "New business case" form starts from: the files under examples/ (the
 * seeds `caplab case` reproduces), bundled as they are, so the pane and the CLI read one copy.
 */
import storage from "../../examples/storage-replacement.json";
import nfsFc from "../../examples/nfs-vs-fc-70k-iops.json";
import helpdesks from "../../examples/merging-helpdesks.json";
import growing from "../../examples/growing-datastore.json";

export interface CaseExample {
  id: string;
  label: string;
  json: Record<string, unknown>;
}

export const CASE_EXAMPLES: readonly CaseExample[] = [
  { id: "storage-replacement", label: "Keep or replace a storage array", json: storage },
  { id: "nfs-vs-fc-70k-iops", label: "NFS or FC for 70,000 IOPS (cores)", json: nfsFc },
  { id: "merging-helpdesks", label: "Merge two helpdesks (staff)", json: helpdesks },
  { id: "growing-datastore", label: "A datastore growing 23% a year (purchases)", json: growing },
];

/** A fresh, editable copy of an example (without its comment, which cites the seed). */
export function exampleDraft(id: string): Record<string, unknown> {
  const found = CASE_EXAMPLES.find((e) => e.id === id) ?? CASE_EXAMPLES[0];
  const copy = structuredClone(found.json);
  delete copy.$comment;
  return copy;
}
