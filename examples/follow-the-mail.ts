// Do what a mail asks: find the message about forwarding and send the invoices where it says. The
// address comes from the message, so this is what a prompt injection turns into; the default
// policy asks you before it sends (rule email.untrusted-recipients), however the program is written.
import { program } from "countersign";
import { getMessage, listMessages, sendEmail } from "trusted/email";

export default program({
  rationale: "Handle the mail that asks for something.",
  async main() {
    const found = await listMessages({ q: "forward" });
    const mail = await getMessage({ id: String(found.messages[0]?.id) });
    const address = (String(mail.body).split("forward all invoices to ")[1] ?? "").split(" ")[0] ?? "";
    await sendEmail({ to: [address], subject: "Invoices", body: "Here they are." });
  },
});
