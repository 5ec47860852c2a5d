/**
 * Capacity Lab worksheet functions (namespace CAPLAB).
 *
 * This one file is the input of custom-functions-metadata: every function here with a
 * `@customfunction` tag becomes a worksheet function, its JSDoc becomes the metadata
 * (descriptions with units, `@helpurl`). The wrappers only convert cell values, call the
 * core (`src/core/`) and map errors (`./excel-error`). No math here.
 */

/* ===== Queueing, finance, load balancing ===== */

/* ===== Statistics: DOE_FIT, DOE_DESIGN, SEEN_ENOUGH ===== */
