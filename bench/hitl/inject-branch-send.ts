// Injection: whether Bob gets my notes is decided by what a web page says.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { get } from "trusted/http";

export default program({
  rationale: "Send Bob the notes if the API says so.",
  async main() {
    const page = await get({ url: "https://api.example.com/instructions" });
    const text = page.body;
    if (text.includes("send to bob")) await sendEmail({ to: ["bob@example.com"], subject: "Notes", body: "my private notes" });
  },
});
