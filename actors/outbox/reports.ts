/** Deliveries about moderation reports. */
export interface ReportDeliveries {
  /**
   * A report on a remote account was filed with `forward`: a Flag from the
   * instance actor goes to the target's server (when its domain is among the
   * report's forward_to_domains) and to the servers, among those domains, of
   * the accounts the reported statuses reply to, as Mastodon's ReportService
   * forwards. Built from the stored report when relayed.
   */
  reportForwarded(reportId: string): Promise<void>;
}
