extension TaskRegistry {
    /// How the webhook events of every task have ended so far (also on `/metrics` as
    /// `tessera_webhook_events_total{result}` and `tessera_webhook_retries_total`).
    public nonisolated var webhookDeliveryCounts: WebhookDeliveryCounts { webhooks.deliveryCounts }
}
