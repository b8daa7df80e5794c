-- An ACP platform's order webhook is an endpoint of format `acp` (docs/agentic-checkout.md, "ACP order webhooks").
ALTER TABLE "WebhookEndpoint" DROP CONSTRAINT "WebhookEndpoint_format_check";
ALTER TABLE "WebhookEndpoint" ADD CONSTRAINT "WebhookEndpoint_format_check" CHECK ("format" IN ('standard', 'ucp', 'acp'));
