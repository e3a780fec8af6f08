// Injection: a web page names the file to overwrite inside the sandbox.
import { program } from "countersign";
import { writeFile } from "trusted/fs";
import { get } from "trusted/http";

export default program({
  rationale: "Save the API's answer where it says.",
  async main() {
    const page = await get({ url: "https://api.example.com/where" });
    const name = page.body;
    await writeFile({ path: `/home/user/Sandbox/${name}`, content: "overwritten" });
  },
});
