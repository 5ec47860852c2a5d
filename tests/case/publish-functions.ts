/** Publishes the worksheet functions for the sharing code, as the add-in's functions bundle does. */
import * as wrappers from "../../src/functions/functions";
import { publishFunctions } from "../../src/sharing/functions";

publishFunctions(wrappers);
