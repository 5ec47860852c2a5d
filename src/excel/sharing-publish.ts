/**
 * Part of the functions bundle's entry (webpack.config.js): publishes the worksheet wrappers of
 * that bundle for the task pane's sharing code (see `sharing-functions.ts`).
 */
import * as wrappers from "../functions/functions";
import { publishFunctions } from "./sharing-functions";

publishFunctions(wrappers);
