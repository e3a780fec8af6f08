// Summarize the inbox: list the newest messages and read each one. Reading runs without asking
// under the default policy; what it returns is untrusted (anyone can write to you), so what a
// later program does with it is checked against where it came from.
import { program } from "countersign";
import { getMessage, listMessages } from "trusted/email";

export default program({
  rationale: "Summarize my inbox.",
  async main() {
    const found = await listMessages({ q: "", max_results: 10 });
    const summary = [];
    for (const m of found.messages) {
      const mail = await getMessage({ id: String(m.id) });
      summary.push({ from: String(mail.from), subject: String(mail.subject), start: String(mail.body).slice(0, 80) });
    }
    return summary;
  },
});
