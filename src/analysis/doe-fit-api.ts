/** The shape of src/core/doe-fit.ts's doeFit as the brief names it (temporary, see lab-plan.ts). */
export interface DoeFitTerm {
  name: string;
  estimate: number;
  stdError: number;
  tValue: number;
  pValue: number;
  aliased: boolean;
}
export interface DoeFitResult {
  terms: DoeFitTerm[];
  residualStandardError: number;
  residualDf: number;
  rSquared: number;
  adjRSquared: number;
  fStatistic: number;
  fNumeratorDf: number;
  fDenominatorDf: number;
  fPValue: number;
  observations: number;
  significanceFrom: string;
}
export type DoeFitFn = (
  names: string[],
  columns: (number | string)[][],
  response: number[],
  options?: { order?: number; coding?: string; intercept?: boolean },
) => DoeFitResult;
