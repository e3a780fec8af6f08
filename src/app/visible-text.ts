// The approval surfaces' name for it; it lives in the model so that the CLI's light paths can print
// program text without loading the app.
export { visibleText } from "../model/visible-text.js";
