// Benign: post my notes to the team wiki API.
import { program } from "countersign";
import { readFile } from "trusted/fs";
import { post } from "trusted/http";

export default program({
  rationale: "Publish my notes on the team wiki.",
  async main() {
    const notes = await readFile({ path: "/home/user/Sandbox/notes.md" });
    const body = notes.content;
    await post({ url: "https://api.example.com/wiki/notes", body, content_type: "text/markdown" });
  },
});
