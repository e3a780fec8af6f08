// Benign: fetch today's status from the team API and mail it to myself.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { get } from "trusted/http";

export default program({
  rationale: "Mail me today's service status.",
  async main() {
    const status = await get({ url: "https://api.example.com/status" });
    const body = status.body;
    await sendEmail({ to: ["me@example.com"], subject: "Service status", body });
  },
});
