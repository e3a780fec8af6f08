// Reads only: list a folder, read two notes, fetch a status. Under the default policy every call
// is allowed (reads change nothing), so this program runs without asking anyone.
import { program } from "countersign";
import { listDir, readFile } from "trusted/fs";
import { get } from "trusted/http";
import { noWrites } from "trusted/fs/contracts";
import { onlyHosts } from "trusted/http/contracts";

export default program({
  rationale: "Catch up on this week's notes and the build status.",
  guarantees: [noWrites(), onlyHosts(["api.example.com"]), { op: "email.*", count: { max: 0 } }],
  async main() {
    await listDir({ path: "/home/user/Sandbox/notes" });
    for (const day of ["monday", "tuesday"]) {
      await readFile({ path: `/home/user/Sandbox/notes/${day}.md` });
    }
    await get({ url: "https://api.example.com/v1/builds/latest" });
  },
});
