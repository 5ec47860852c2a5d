/**
 * Where every cell of the business-case sheet is, decided before any formula is written.
 *
 * The case sheet's formulas refer across tables (the Costs table sums lines of its own, reads the
 * Capacity table's servers, the cash flows read the Costs table, the conclusion reads them all).
 * So the sheet is laid out in two steps: first every table is placed with the keys of its rows and
 * columns (internal identifiers such as `line:2` or `option_1`, never a label from the input),
 * which fixes every address; then the cells are made, and a formula asks the layout for the
 * address of the cell it means by table, row key and column key. No formula is found by
 * searching for a label, so no label typed by the user can make a formula point elsewhere.
 */
import { cellA1, rowBelow } from "../workbook/plan";

/** A placed table: its header's 0-based position and the keys of its rows and columns, in order. */
export interface Block {
  name: string;
  /** 0-based sheet position of the header row's first cell. */
  at: { row: number; col: number };
  rows: readonly string[];
  cols: readonly string[];
}

/**
 * Places tables (top to bottom, one blank row between, or beside another) and answers addresses.
 * Every table has a title row above its header (the block's `at` is the header; the title is in
 * the row above it), so two tables with the same columns ("Year | NFS | FC") are told apart.
 */
export class CaseLayout {
  private readonly blocks = new Map<string, Block>();
  private nextRow: number;

  /** @param firstRow - 0-based row of the first table's header (below the notes). */
  constructor(firstRow: number) {
    this.nextRow = firstRow;
  }

  /**
   * Places a table below the previous ones (one blank row between), or to the right of `beside`
   * (same header row, one blank column between).
   *
   * @throws Error when a key repeats (an address must name one cell) or the name is taken
   */
  place(name: string, rows: readonly string[], cols: readonly string[], beside?: Block): Block {
    if (this.blocks.has(name)) throw new Error(`internal: table ${name} placed twice`);
    for (const keys of [rows, cols])
      if (new Set(keys).size !== keys.length) throw new Error(`internal: repeated key in table ${name}`);
    const at = beside
      ? { row: beside.at.row, col: beside.at.col + beside.cols.length + 1 }
      : { row: this.nextRow + 1, col: 0 };
    const block: Block = { name, at, rows: [...rows], cols: [...cols] };
    this.blocks.set(name, block);
    this.nextRow = Math.max(this.nextRow, rowBelow(at.row - 1, 2 + rows.length));
    return block;
  }

  /** The 0-based sheet row of a row key (`"header"` is the header row). */
  row(block: Block, rowKey: string): number {
    if (rowKey === "header") return block.at.row;
    const i = block.rows.indexOf(rowKey);
    if (i < 0) throw new Error(`internal: row ${rowKey} not in table ${block.name}`);
    return block.at.row + 1 + i;
  }

  /** The 0-based sheet column of a column key. */
  col(block: Block, colKey: string): number {
    const j = block.cols.indexOf(colKey);
    if (j < 0) throw new Error(`internal: column ${colKey} not in table ${block.name}`);
    return block.at.col + j;
  }

  /** A1 address of a cell (`abs`: $A$1). */
  cell(block: Block, rowKey: string, colKey: string, abs = false): string {
    return a1(this.row(block, rowKey), this.col(block, colKey), abs);
  }

  /** A1 range over rows `from` … `to` of one column, or over columns `from` … `to` of one row. */
  span(block: Block, from: [string, string], to: [string, string], abs = false): string {
    const a = this.cell(block, from[0], from[1], abs);
    const b = this.cell(block, to[0], to[1], abs);
    return a === b ? a : `${a}:${b}`;
  }

  /** Where the next table would go (0-based row). */
  get bottom(): number {
    return this.nextRow;
  }
}

/** A1 address of a 0-based sheet position; `abs` gives $A$1. */
export function a1(row: number, col: number, abs = false): string {
  return cellA1({ row, col }, { absolute: abs });
}
