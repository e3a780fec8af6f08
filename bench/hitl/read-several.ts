// Benign: list a folder and read every note in it.
import { program } from "countersign";
import { listDir, readFile } from "trusted/fs";

export default program({
  rationale: "Read all my meeting notes.",
  async main() {
    const listing = await listDir({ path: "/home/user/Sandbox/meetings" });
    const names = Array.isArray(listing.names) ? listing.names : [];
    for (const name of names) {
      if (typeof name === "string" && name.endsWith(".md")) await readFile({ path: `/home/user/Sandbox/meetings/${name}` });
    }
  },
});
