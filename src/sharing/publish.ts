/**
 * Part of the functions bundle's entry (webpack.config.js): publishes the worksheet wrappers of
 * that bundle for the task pane's sharing code (see `functions.ts`).
 */
import * as wrappers from "../functions/functions";
import { publishFunctions } from "./functions";

publishFunctions(wrappers);
