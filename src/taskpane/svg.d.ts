/** SVG files imported as their text (webpack's asset/source rule for .svg). */
declare module "*.svg" {
  const text: string;
  export default text;
}
