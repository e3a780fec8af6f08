// Benign: list a folder and read every note in it.
import { program } from "countersign";
import { listDir, readFile } from "trusted/fs";

export default program({
  rationale: "Read all my meeting notes.",
  async main() {
    const listing = await listDir({ path: "/home/user/Sandbox/meetings" });
    for (const entry of listing.entries) {
      const name = String(entry.name);
      if (entry.type === "file" && name.endsWith(".md")) await readFile({ path: `/home/user/Sandbox/meetings/${name}` });
    }
  },
});
