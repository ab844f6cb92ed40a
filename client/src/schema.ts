// Generated from the engage API's OpenAPI document by openapi-typescript: do not edit.
// Regenerate with `npm run generate --workspace client -- <service URL>` (README "The typed client").

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Service health */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in to the dashboard; returns a 12-hour JWT */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The calling account and credential */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's settings: the default country of phone numbers (imports), the time zone of quiet hours, and whether templates' variables are strict */
        get: operations["getAccountSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the account's settings (a field left out stays as it is, null clears it) */
        patch: operations["updateAccountSettings"];
        trace?: never;
    };
    "/v1/account/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the account's API keys (never the secrets) */
        get: operations["listApiKeys"];
        put?: never;
        /** Issue a new API key; the key is shown once */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/api-keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate a key: a new key now, the old one keeps working for 24 hours */
        post: operations["rotateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key at once */
        delete: operations["deleteApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/erasures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Erase an email address or phone number: messages sent to it, and every contact that has it (right to erasure) */
        post: operations["eraseAddress"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List contacts (filters: email, phone, tag, q), newest first */
        get: operations["listContacts"];
        put?: never;
        /** Create a contact */
        post: operations["createContact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's contacts (or one list's or segment's members) as a streamed CSV file, one column per custom field (README "Contacts export") */
        get: operations["exportContacts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/fields": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the account's custom field definitions */
        get: operations["listCustomFields"];
        put?: never;
        /** Define a custom field */
        post: operations["createCustomField"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/fields/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a custom field definition (values stored on contacts are kept) */
        delete: operations["deleteCustomField"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Look up one contact */
        get: operations["getContact"];
        put?: never;
        post?: never;
        /** Delete a contact */
        delete: operations["deleteContact"];
        options?: never;
        head?: never;
        /** Update standard and custom fields (custom_fields merge; null removes a value) */
        patch: operations["updateContact"];
        trace?: never;
    };
    "/v1/contacts/{id}/erase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Erase a contact's personal data (right to erasure): its data keys are destroyed; it is never messaged again */
        post: operations["eraseContact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/{id}/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The contact's active push devices, oldest first (at most 50: one page) */
        get: operations["listContactDevices"];
        put?: never;
        /** Register a push device token for the contact (201; 200 when the contact has it already); the token leaves another contact that has it */
        post: operations["registerContactDevice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/{id}/devices/{device_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a push device of the contact */
        delete: operations["deleteContactDevice"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lists": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List lists: pinned (favorite) first, then newest first; each with its member count */
        get: operations["listLists"];
        put?: never;
        /** Create a list */
        post: operations["createList"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lists/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Look up one list */
        get: operations["getList"];
        put?: never;
        post?: never;
        /** Delete a list (its contacts are kept) */
        delete: operations["deleteList"];
        options?: never;
        head?: never;
        /** Update a list's name or description (null removes the description) */
        patch: operations["updateList"];
        trace?: never;
    };
    "/v1/lists/{id}/favorite": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Pin (favorite: true) or unpin a list; pinned lists come first */
        patch: operations["setListFavorite"];
        trace?: never;
    };
    "/v1/lists/{id}/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The list's member contacts, newest contact first */
        get: operations["listListContacts"];
        put?: never;
        /** Add one contact to the list (201; 200 when it is on the list already); answers the list */
        post: operations["addListContact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lists/{id}/contacts/{contactId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove one contact from the list (the contact is kept); answers the list */
        delete: operations["removeListContact"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/segments/schema": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The fields (standard, the account’s custom fields by type, list, tag, event, suppressed), their operators and value types */
        get: operations["getSegmentSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/segments/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Count the contacts a rule set matches now, without saving it (sample: true adds the first 10 by id) */
        post: operations["previewSegment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/segments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List segments, newest first, each with its live count */
        get: operations["listSegments"];
        put?: never;
        /** Create a segment */
        post: operations["createSegment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/segments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Look up one segment, with its live count */
        get: operations["getSegment"];
        /** Replace a segment’s name, description and rules (a description left out is removed) */
        put: operations["replaceSegment"];
        post?: never;
        /** Delete a segment (its contacts are not touched) */
        delete: operations["deleteSegment"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/segments/{id}/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The contacts the segment matches now, in id order (oldest first) */
        get: operations["listSegmentContacts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Track what contacts did: one event, {events: [...]} or an array of up to 1,000; unknown contacts identified by email or phone are created */
        post: operations["trackEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send one message (202: accepted for dispatch, or scheduled) */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send up to 10,000 messages; invalid items are reported as failed, valid ones accepted */
        post: operations["sendBulkMessages"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/send-by-tag": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send one message to every contact carrying a tag, addressed from the contact’s email or phone */
        post: operations["sendMessagesByTag"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Message history, newest first (filters: status, channel, to, from, until) */
        get: operations["listMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Look up one message */
        get: operations["getMessage"];
        put?: never;
        post?: never;
        /** Cancel a scheduled or queued message not yet picked up (409 not_cancellable otherwise) */
        delete: operations["cancelMessage"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a new message to the same recipient with the same content */
        post: operations["resendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every state change of a message with time, reason and provider data (from its event stream) */
        get: operations["getMessageTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List campaigns, newest first (filter: status) */
        get: operations["listCampaigns"];
        put?: never;
        /** Create a campaign: one message to every member of a list or segment, sent now or at scheduled_at */
        post: operations["createCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Look up one campaign, with its messages counted by status */
        get: operations["getCampaign"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a scheduled campaign (409 not_cancellable once its send has started) */
        post: operations["cancelCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's webhook endpoints and the catalogue of subscribable events */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /** Register an endpoint; the whsec_ signing secret is returned once */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an endpoint */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /** Change url, events or status (active | disabled) */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deliver a ping now; returns the receiver's status code and latency */
        post: operations["testWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recent delivery attempts of an endpoint: event, status code, latency, next attempt */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deliver again now (a failed delivery, or one waiting for its next retry) */
        post: operations["retryWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/webhook-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signing secret of per-message delivery webhooks (created on first request) */
        get: operations["getWebhookSecret"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/webhook-secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a new per-message signing secret; deliveries from now on use it */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-deliver the account's platform events from a window of the log (RFC 3339 times or log positions) to this endpoint */
        post: operations["createWebhookReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/replays": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An endpoint's replays, newest first, with their progress */
        get: operations["listWebhookReplays"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/replays/{replayId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A replay: status (scanning, delivering, completed, cancelled) and events found, delivered, failed, pending */
        get: operations["getWebhookReplay"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/replays/{replayId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a replay: its deliveries still to be made are cancelled */
        post: operations["cancelWebhookReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/unsubscribes/api/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's suppressions (opt-outs), newest first; filters reason and address */
        get: operations["listSuppressions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/unsubscribes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Suppress an email address or phone number (201; 200 with the suppression as it is when it is suppressed already) */
        post: operations["createSuppression"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/unsubscribes/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Lift the suppression of an address (URL-encoded email or E.164 phone); an erasure’s is never lifted (409) */
        delete: operations["deleteSuppression"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The inbox: one conversation per contact and channel, newest activity first (filters: status, channel, assignee or "none", unread) */
        get: operations["listConversations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One conversation: its contact, channel, status, assignee and unread count */
        get: operations["getConversation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Open or close a conversation, assign it (null unassigns), mark it read or unread */
        patch: operations["updateConversation"];
        trace?: never;
    };
    "/v1/conversations/{id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A conversation's messages, inbound and outbound, oldest first */
        get: operations["listConversationMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations/{id}/reply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reply in a conversation: sent on its channel through the normal pipeline, to the contact's address, in the email thread */
        post: operations["replyToConversation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/inbound": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's reply address (inbound email), the URL its inbound messages are pushed to, and its HELP text */
        get: operations["getInboundSettings"];
        /** Set the inbound webhook URL (message.received, signed with the account signing secret) and the HELP text; null clears one, a field left out stays */
        put: operations["setInboundSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sender/rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A country's sender requirements (alphanumeric IDs, registration, lead time); guidance, not legal advice */
        get: operations["getSenderRules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sender/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Classify a sender and check it against a country and channel */
        post: operations["validateSender"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/senders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's registered senders, newest first, with their review status */
        get: operations["listSenders"];
        put?: never;
        /** Register a sender: pending until reviewed, or approved at once where its country needs no registration */
        post: operations["createSender"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/senders/{id}/verification": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a 6-digit code to the sender's number (by text or call) from the service's own number; enter it at /verify to prove the number is the account's */
        post: operations["requestSenderVerification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/senders/{id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enter the code sent to the number: proves it (wrong: 400 with attempts_left; expired, spent or none pending: 409) */
        post: operations["verifySender"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/senders/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a sender; its sender, channel and country may be registered again */
        delete: operations["deleteSender"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/email-domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's email domains with their DNS records and the state of each */
        get: operations["listEmailDomains"];
        put?: never;
        /** Add a sending domain: a DKIM key pair is made for it, and the records to publish are returned */
        post: operations["createEmailDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/email-domains/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One email domain */
        get: operations["getEmailDomain"];
        put?: never;
        post?: never;
        /** Remove a domain and its DKIM key: mail from it is no longer signed */
        delete: operations["deleteEmailDomain"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/email-domains/{id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check the DNS records live; it does not prove that outgoing mail is signed */
        post: operations["verifyEmailDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/email-domains/{id}/check-signing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Decide from pasted headers whether mail carries a DKIM signature for the domain (no DNS), and record the verdict */
        post: operations["checkEmailDomainSigning"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/email-domains/{id}/bimi": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set the BIMI logo (an https SVG Tiny PS file, checked) or clear it with null; returns the BIMI record */
        put: operations["setEmailDomainBimiLogo"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/email-domains/{id}/dmarc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recent DMARC aggregate reports and a rollup of the last 30 days */
        get: operations["getEmailDomainDmarc"];
        put?: never;
        /** Store a DMARC aggregate (rua) XML report; one already stored (same reporter and report id) is not counted again */
        post: operations["createEmailDomainDmarcReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/email-domains/{id}/dmarc/readiness": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether the domain can move to p=quarantine (README "DMARC readiness"), and the two records to publish */
        get: operations["getEmailDomainDmarcReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/email-domains/{id}/warmup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start, pause, resume or stop the domain's warm-up ramp (marketing email over the day's cap is held) */
        post: operations["changeEmailDomainWarmup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/integrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's integrations, newest first (credentials shown as a hint only) */
        get: operations["listIntegrations"];
        put?: never;
        /** Create an integration with a provider; its credentials are checked by the provider's shape, sealed, and never shown again */
        post: operations["createIntegration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/integrations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an integration and its credentials */
        delete: operations["deleteIntegration"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/link-domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's link domains with the CNAME record each must publish and its state */
        get: operations["listLinkDomains"];
        put?: never;
        /** Add a link domain: tracked links of email go through it once its CNAME is verified */
        post: operations["createLinkDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/link-domains/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a link domain: links sent from now on no longer use it (links already sent keep working while it points here) */
        delete: operations["deleteLinkDomain"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/link-domains/{id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check the domain's CNAME live: verified when it names the target host */
        post: operations["verifyLinkDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/c/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A tracked link of an email: records the click on the message and its contact, and redirects (302) to the link's URL (on the shared click host, a new account's link shows an interstitial page instead)
         * @description A token that is not genuine, names no message, or whose links never went out (never sent, or cancelled) answers 404.
         */
        get: operations["followTrackedLink"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/o/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The open pixel of an email: records an open on the message (and, unless a machine fetched it, on its contact); always a 1×1 GIF
         * @description A token that is not genuine, names no message, or whose email never went out records nothing, and answers the same image.
         */
        get: operations["fetchOpenPixel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's plan: tier, price, included volumes (annual-adjusted), this month's usage, region mode and self-serve upgrades */
        get: operations["getPlan"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/pricing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sell prices per channel and recipient country ('*': everywhere else) in the account's currency; cost prices are never shown */
        get: operations["getPricing"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sent messages and their charges per month and channel (default: the last 6 months; at most 24) */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The prepaid balance: the sum of the balance ledger in the billing currency */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/balance/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The balance ledger, newest first: message debits, credits for failures the provider did not charge, top-ups and currency conversions */
        get: operations["listBalanceTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/billing-currency": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The billing currency, the currencies available, and how a change converts the balance */
        get: operations["getBillingCurrency"];
        /** Chooses the billing currency; the balance is converted at the effective rate, recorded with the rate used */
        put: operations["setBillingCurrency"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/billing-details": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Company and tax details used on invoices, with the billing currency and how a change converts the balance */
        get: operations["getBillingDetails"];
        /** Sets the invoice details; the tax id is checked by format for the address's country */
        put: operations["setBillingDetails"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sent, delivered, failed and clicked per UTC day and channel over from..to (inclusive; default the last 30 days; at most 366), zero-filled, with totals and rates */
        get: operations["getAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/list-growth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** New, unsubscribed, resubscribed and deleted contacts per UTC day over from..to, the net change and the running number of contacts */
        get: operations["getListGrowth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/deliverability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Email bounce and complaint rates over the last 7 and 30 days, and health against the bulk-sender thresholds */
        get: operations["getDeliverability"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/channel-deliverability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Delivery and failure rates of every channel (sms, rcs, whatsapp, voice, email, push) over the last 7 and 30 days */
        get: operations["getChannelDeliverability"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/ai-assist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Text assist for one block: rewrite, shorten, lengthen, friendly, professional, fix, generate or subjects; always answers (degraded: true from the built-in fallback) */
        post: operations["assistText"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/ai-write": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A whole email (subject, preheader, HTML, text) from a brief; always answers (degraded: true from the built-in fallback) */
        post: operations["writeEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/ai-writer-request": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ask for the AI writer add-on; an operator enables it. Asking again while a request stands, or once enabled, changes nothing */
        post: operations["requestAiWriter"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/ai-writer-status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether the AI writer add-on is enabled, requested, or neither */
        get: operations["getAiWriterStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/ai-coach-request": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ask for the AI coach add-on; an operator enables it. Asking again while a request stands, or once enabled, changes nothing */
        post: operations["requestAiCoach"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/ai-coach-status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether the AI coach add-on is enabled, requested, or neither */
        get: operations["getAiCoachStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/ai-recommendations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The AI coach's marketing recommendations for today (UTC), made once a day and then cached; 403 unless the coach is enabled */
        post: operations["getAiRecommendations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/brand-voice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The brand voice the AI helpers write in (null when none is set) */
        get: operations["getBrandVoice"];
        /** Sets the brand voice (replacing the whole profile); null or {} clears it */
        put: operations["setBrandVoice"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/spam-check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Scores an email against the spam rules: {score, rating, issues:[{rule, message, weight}]} */
        post: operations["checkSpam"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List templates, newest first (of one channel, with channel=) */
        get: operations["listTemplates"];
        put?: never;
        /** Create a template (version 1); Liquid that does not parse is a 400 naming the part, line and column */
        post: operations["createTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/draft": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Have the AI writer draft an email from a brief and save it as a new email template (the AI writer add-on; 403 unless enabled) */
        post: operations["draftTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Look up one template (its newest version) */
        get: operations["getTemplate"];
        put?: never;
        post?: never;
        /** Delete a template (messages already accepted from it are sent as they were rendered) */
        delete: operations["deleteTemplate"];
        options?: never;
        head?: never;
        /** Make a new version: the parts given replace the newest version’s (a change to nothing makes no version) */
        patch: operations["updateTemplate"];
        trace?: never;
    };
    "/v1/templates/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every version of a template, newest first */
        get: operations["listTemplateVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One version of a template, as it was saved */
        get: operations["getTemplateVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a template as a test to one of the account’s users (email templates; rendered as a preview is, subject marked [Test], transactional) */
        post: operations["testSendTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Render a template for a contact and data, as a send would (strict variables: a missing one is a 400 naming it) */
        post: operations["previewTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's signup forms, newest first */
        get: operations["listForms"];
        put?: never;
        /** Create a signup form: its fields (an email or phone among them), the list it adds to, double opt-in (on unless false) and its confirmation message */
        post: operations["createForm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One signup form, with its counts of submissions and confirmations */
        get: operations["getForm"];
        put?: never;
        post?: never;
        /** Delete a signup form: its page and submit route answer 404 from then on (contacts it made stay) */
        delete: operations["deleteForm"];
        options?: never;
        head?: never;
        /** Change a signup form (the fields given; `fields` replaces the whole list) */
        patch: operations["updateForm"];
        trace?: never;
    };
    "/v1/contacts/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change to the contact, oldest first: time, event type, actor, request id and the fields changed */
        get: operations["listContactHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lists/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change to the list, oldest first: time, event type, actor, request id and the fields changed */
        get: operations["listListHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/segments/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change to the segment, oldest first: time, event type, actor, request id and the fields changed */
        get: operations["listSegmentHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change to the form, oldest first: time, event type, actor, request id and the fields changed */
        get: operations["listFormHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change to the template, oldest first: time, event type, actor, request id and the fields changed */
        get: operations["listTemplateHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change to the webhook endpoint, oldest first: time, event type, actor, request id and the fields changed */
        get: operations["listWebhookEndpointHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/api-keys/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change to the api key, oldest first: time, event type, actor, request id and the fields changed */
        get: operations["listApiKeyHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/email-domains/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every change to the email domain, oldest first: time, event type, actor, request id and the fields changed */
        get: operations["listEmailDomainHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/tracking-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The public, write-only browser tracking key with its ready-to-paste snippet (created on first request) */
        get: operations["getTrackingKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/tracking-origins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Restrict the website origins that may use the tracking key (an empty list accepts any origin) */
        put: operations["setTrackingOrigins"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/tracking-identity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The identity secret your backend computes user_hash with, and whether a signed identity is required */
        get: operations["getTrackingIdentity"];
        /** Require (or stop requiring) a signed identity (user_hash) from the browser; turning it off answers a warning */
        put: operations["setTrackingIdentity"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/tracking-traits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The traits a browser may set on its visitor: the profile traits, and the custom fields and tags the account allows */
        get: operations["getTrackingTraits"];
        /** Allow a browser to set these custom fields (and tags, when true) besides the profile traits; the rest of its traits is ignored */
        put: operations["setTrackingTraits"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/tracking-identity/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a new identity secret: every user_hash made with the old one stops working at once */
        post: operations["rotateTrackingIdentitySecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's contacts imports, newest first */
        get: operations["listImports"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/imports/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One import: status, live counts, how each column was mapped, and the first 1,000 row errors */
        get: operations["getImport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import contacts from a CSV file (multipart field "file", or a text/csv body with the options as query parameters); 202 once stored */
        post: operations["importContacts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lists/{id}/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import contacts from a CSV file into this list (every imported or updated contact becomes a member); 202 once stored */
        post: operations["importListContacts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/unsubscribe/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The unsubscribe link of a marketing email: a confirmation page whose button POSTs back (a GET never unsubscribes) */
        get: operations["getUnsubscribePage"];
        put?: never;
        /** One-click unsubscribe (RFC 8058 body List-Unsubscribe=One-Click, the page’s form, or no body): suppresses the recipient for marketing */
        post: operations["unsubscribe"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/track": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Browser tracking ingestion (the SDK calls it): identify a visitor (signed with user_hash when required) and record track and page events; JSON or text/plain, at most 64 KiB; the key in the body or as ?key= */
        post: operations["ingestBrowserEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/track/sdk.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The browser SDK the tracking snippet loads */
        get: operations["getTrackingSdk"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/push/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** An app registers its own push device for its user with the public tracking key: the user named as POST /v1/track names a visitor (signed with user_hash when the account requires it); JSON or text/plain, at most 64 KiB; the key in the body or as ?key= */
        post: operations["registerPushDevice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/forms/{id}/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A signup form's submission (no key): form-encoded from a browser's form (then answered with a page, or sent on to the form's redirect_url), or JSON from a page's own code; the hidden _hp (left empty by people) and _started (the start token of the hosted page or snippet) fields keep bots out */
        post: operations["submitForm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/f/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The hosted page of a signup form */
        get: operations["getFormPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/f/{id}/embed.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The script a form's snippet loads: it draws the form into the page's [data-engage-form] element */
        get: operations["getFormScript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/f/confirm/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The confirmation link of a double opt-in: a page whose button POSTs back (a GET never confirms) */
        get: operations["getFormConfirmation"];
        put?: never;
        /** Confirms a double opt-in: the contact is found or created, put on the form's list, and its consent recorded; then the form's redirect_url or a page */
        post: operations["confirmFormSubmission"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** MCP tool endpoint (Streamable HTTP, stateless): one JSON-RPC message in, one JSON answer out (202 for a notification) */
        post: operations["sendMcpMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mcp/act": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run one agent tool as plain REST (for a GPT action): body {tool, arguments}; answers the tool route's own status and body. Tools: GET /v1/mcp/act/openapi.json
         * @description The answer is the tool route's own, status and body: an error status of any tool's route passes through. A tool that does not exist answers 404.
         */
        post: operations["runAgentTool"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description A campaign: its name, its audience (a list or a segment), when it sends, and the message every member gets (its content, or the template that makes each member’s own) */
        CampaignBodyInput: {
            /** @enum {string} */
            channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
            message?: string;
            htmlmessage?: string;
            subject?: string;
            transactional?: boolean;
            category?: string;
            sender?: string;
            reply_to?: string;
            from_name?: string;
            headers?: {
                [key: string]: string;
            };
            scheduled_at?: string;
            webhook_url?: string;
            /** @description render the message from this template (message, subject and htmlmessage are then left out) */
            template_id?: string;
            /** @description the template version to send; the newest when the campaign sends, when left out */
            template_version?: number;
            /** @description the values the template reads as data.<key>, the same for every member */
            data?: {
                [key: string]: unknown;
            };
            name: string;
            audience: {
                list_id?: string;
                segment_id?: string;
            };
        };
        /** @description rules joined by match: all (and) or any (or); a rule set may hold rule sets */
        SegmentRuleSetInput: {
            /** @enum {string} */
            match: "all" | "any";
            rules: ({
                /** @description contact.<field>, custom.<key>, list, tag, event.<name> or suppressed */
                field: string;
                /** @description one of the field type’s operators (GET /v1/segments/schema) */
                operator: string;
                value?: unknown;
                /** @description event rules only */
                count?: number;
                /** @description event rules only */
                within_days?: number;
            } | components["schemas"]["SegmentRuleSetInput"])[];
        };
        /** @description A template: its name, its channel, and its parts in Liquid */
        TemplateBodyInput: {
            name: string;
            /** @enum {string} */
            channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
            subject?: string | null;
            /** @description the message (email: its plain-text part), in Liquid */
            text: string;
            html?: string | null;
        };
        /** @description A new version: the parts given replace the newest version’s (null removes subject or html); the channel stays */
        TemplatePatchInput: {
            name?: string;
            subject?: string | null;
            /** @description the message (email: its plain-text part), in Liquid */
            text?: string;
            html?: string | null;
        };
        TemplatePreviewBodyInput: {
            /** @description render for this contact (contact.*) */
            contact_id?: string;
            /** @description the send’s data (data.*) */
            data?: {
                [key: string]: unknown;
            };
            /** @description the version to render; the newest when left out */
            version?: number;
        };
        TemplateTestSendBodyInput: {
            /** @description render for this contact (contact.*) */
            contact_id?: string;
            /** @description the send’s data (data.*) */
            data?: {
                [key: string]: unknown;
            };
            /** @description the version to render; the newest when left out */
            version?: number;
            /** @description the email of one of the account’s users */
            to: string;
        };
        /** @description A brief for the AI writer (as POST /v1/account/ai-write) and the new template’s name */
        TemplateDraftBodyInput: {
            brief: string;
            audience?: string;
            tone?: string;
            /** @enum {string} */
            length?: "short" | "medium" | "long";
            call_to_action?: string;
            name: string;
        };
        /** @description The error body: {error, message} and what the code adds (issues, missing, retry_after, request_id, …) */
        Error: {
            /** @description a snake_case code: validation_error, unauthorized, insufficient_scope, not_found, conflict, rate_limited, … */
            error: string;
            /** @description what went wrong, for a person, naming the field, header or setting that fixes it */
            message: string;
            /** @description each invalid field (validation_error) */
            issues?: {
                path: string;
                message: string;
            }[];
        } & {
            [key: string]: unknown;
        };
        /** @description The account's settings (null: not set) */
        AccountSettings: {
            /** @description ISO 3166-1 alpha-2: the country of phone numbers written without + (imports) */
            default_country: string | null;
            /** @description IANA time zone of quiet hours */
            timezone: string | null;
            /**
             * @description strict: a send that leaves a variable of its template without a value is refused (400, naming them); lenient (the default): it renders empty
             * @enum {string}
             */
            template_variables: "strict" | "lenient";
        };
        /** @description An API key (its secret is shown only when it is issued) */
        ApiKey: {
            id: string;
            /** @description the start of the key, to recognise it by */
            prefix: string;
            name: string | null;
            /** @description null: every scope (full access) */
            scopes: ("read" | "write" | "settings")[] | null;
            /** Format: date-time */
            created_at: string;
            /** @description set when it was rotated: it works until then */
            expires_at: string | null;
            revoked_at: string | null;
            /** @description the key it was rotated from */
            replaces: string | null;
        };
        /** @description A campaign: its audience, the message template every member gets, and its send's progress */
        Campaign: {
            id: string;
            name: string;
            audience: {
                list_id: string;
            } | {
                segment_id: string;
            };
            /** @enum {string} */
            channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
            /** @description left out when a template makes each member’s message */
            message?: string;
            template_id?: string;
            /** @description the version it sends; left out: the newest when it sends */
            template_version?: number;
            data?: {
                [key: string]: unknown;
            };
            htmlmessage?: string;
            subject?: string;
            reply_to?: string;
            from_name?: string;
            headers?: {
                [key: string]: string;
            };
            sender?: string;
            transactional: boolean;
            category?: string;
            webhook_url?: string;
            /** @enum {string} */
            status: "scheduled" | "sending" | "sent" | "cancelled" | "failed";
            scheduled_at: string | null;
            /** @description messages accepted so far */
            accepted: number;
            /** @description members without an address on the channel */
            skipped: number;
            /** @description (left out only in the answer of a write the read model had not yet taken in) */
            failure_reason?: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description when its send started */
            started_at: string | null;
            /** @description (left out only in the answer of a write the read model had not yet taken in) */
            sent_at?: string | null;
            /** @description (left out only in the answer of a write the read model had not yet taken in) */
            cancelled_at?: string | null;
            /** @description (left out only in the answer of a write the read model had not yet taken in) */
            failed_at?: string | null;
        };
        /** @description A contact: its standard fields (null when not set), tags and custom field values */
        Contact: {
            id: string;
            /** @description lower case */
            email: string | null;
            /** @description E.164 */
            phone: string | null;
            first_name: string | null;
            last_name: string | null;
            /** @description ISO 3166-1 alpha-2 */
            country: string | null;
            /** @description BCP 47 language tag */
            language: string | null;
            /** @description IANA time zone */
            timezone: string | null;
            /** @description your own id of the contact */
            external_id: string | null;
            tags: string[];
            /** @description custom field key → value (GET /v1/contacts/fields) */
            custom_fields: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A custom field definition */
        CustomField: {
            id: string;
            /** @description the key of its values in custom_fields */
            key: string;
            label: string;
            /** @enum {string} */
            type: "text" | "number" | "boolean" | "date" | "select";
            /** @description select fields only: the values it takes */
            options?: string[];
            /** Format: date-time */
            created_at: string;
        };
        /** @description A contact's active push device */
        PushDevice: {
            /** @description dev_… */
            id: string;
            contact_id: string;
            token: string;
            /** @enum {string} */
            platform: "ios" | "android" | "web";
            app_id: string | null;
            /**
             * Format: date-time
             * @description its first registration
             */
            created_at: string;
            /**
             * Format: date-time
             * @description its latest registration that changed it
             */
            last_registered_at: string;
        };
        /** @description A signup form: the fields it asks for, the list it adds to, and its double opt-in */
        Form: {
            id: string;
            name: string;
            fields: {
                name: string;
                label: string;
                required: boolean;
            }[];
            /** @description the list a confirmed submission puts its contact on */
            list_id: string;
            /** @description a submission becomes a contact only once the link sent to its address is followed */
            double_opt_in: boolean;
            confirmation: {
                /** @enum {string} */
                channel: "email" | "sms";
                subject: string | null;
                /** @description {{ confirm_url }} is replaced by the link (appended when absent) */
                message: string;
            };
            /** @description shown above the button; recorded with each consent */
            consent_text: string;
            /** @description where people go once subscribed */
            redirect_url: string | null;
            /** @description a submission sooner than this after the form was shown is taken for a bot */
            min_fill_seconds: number;
            submissions: number;
            confirmed: number;
            /** @description the hosted page */
            url: string;
            /** @description HTML to paste into a page: draws the form there */
            snippet: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A conversation: one contact on one channel, with its inbox state */
        Conversation: {
            id: string;
            contact_id: string;
            /** @enum {string} */
            channel: "sms" | "whatsapp" | "email";
            /** @enum {string} */
            status: "open" | "closed";
            assignee: string | null;
            read: boolean;
            /** @description inbound messages since it was last read */
            unread_count: number;
            message_count: number;
            /** Format: date-time */
            last_message_at: string;
            last_inbound_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A message of a conversation, inbound or sent in it */
        ConversationMessage: {
            /** @description inb_… for an inbound message, msg_… for one sent */
            id: string;
            /** @enum {string} */
            direction: "inbound" | "outbound";
            from: string | null;
            to: string | null;
            body: string | null;
            subject?: string;
            html?: string;
            email_message_id?: string;
            in_reply_to?: string;
            /**
             * @description an inbound sms/whatsapp keyword
             * @enum {string}
             */
            keyword?: "stop" | "start" | "help";
            /**
             * @description sent by the service: the answer to HELP
             * @constant
             */
            automatic?: "help";
            /** @description outbound only: the message's status */
            status?: string | null;
            /** @description inbound only: the provider it came through */
            provider?: string | null;
            /** @description inbound email only: SPF, DKIM and DMARC as checked on arrival */
            authentication?: {
                spf: string;
                dkim: string;
                dmarc: string;
                dmarc_policy: string | null;
            };
            /** Format: date-time */
            created_at: string;
        };
        /** @description The account's inbound settings */
        InboundSettings: {
            /** @description the account's reply address: inbound email to it reaches the inbox */
            reply_address: string;
            /** @description where every inbound message is pushed (message.received) */
            webhook_url: string | null;
            /** @description the answer to an sms/whatsapp HELP */
            help_text: string | null;
        };
        /** @description The outcome of one event of the request */
        TrackedEventResult: {
            /** @description its place in the request, from 0 */
            index: number;
            /**
             * @description duplicate: an event with this id was stored before; nothing more is stored
             * @enum {string}
             */
            status: "accepted" | "duplicate";
            /** @description the event id: the one sent, or one made for it */
            id: string;
            contact_id: string;
        } | {
            /** @description its place in the request, from 0 */
            index: number;
            /** @constant */
            status: "failed";
            /** @description the error code it would have as a request of its own: validation_error, not_found, conflict, … */
            error: string;
            message: string;
            /** @description each invalid field (validation_error) */
            issues?: {
                path: string;
                message: string;
            }[];
        };
        /** @description The stores, every read model’s progress, and the process that answered */
        Health: {
            /**
             * @description unavailable (503): the database or event store is down; degraded: a read model failed or parks events, or readers are held back
             * @enum {string}
             */
            status: "ok" | "degraded" | "unavailable";
            /** @enum {string} */
            database: "ok" | "unreachable";
            /** @enum {string} */
            eventstore: "ok" | "unreachable";
            /** @description one entry per read model, its live generation; empty when the database is down */
            projections: {
                name: string;
                generation: number;
                /** @description the projection code version it was built by */
                version: number;
                /** @description the last log position it applied */
                position: string;
                /** @description committed events of its types not applied yet */
                lag: number;
                /**
                 * @description degraded: running, with events parked (not applied)
                 * @enum {string}
                 */
                status: "running" | "degraded" | "rebuilding" | "failed";
                parked: number;
                error?: string;
                error_position?: string;
                /** @description the event that failed: type, stream and revision, id */
                error_event?: string;
                /** @description the generation being rebuilt beside it */
                rebuild?: {
                    generation: number;
                    /** @description the projection code version it was built by */
                    version: number;
                    /** @description the last log position it applied */
                    position: string;
                    /** @description committed events of its types not applied yet */
                    lag: number;
                    /**
                     * @description degraded: running, with events parked (not applied)
                     * @enum {string}
                     */
                    status: "running" | "degraded" | "rebuilding" | "failed";
                    parked: number;
                    error?: string;
                    error_position?: string;
                    /** @description the event that failed: type, stream and revision, id */
                    error_event?: string;
                };
            }[];
            /** @description the oldest open transaction, when it holds the catch-up readers back */
            readers?: {
                held_back_by: {
                    pid: number | null;
                    age_ms: number | null;
                    application: string | null;
                    database: string | null;
                    state: string | null;
                    xid: string;
                    prepared_gid?: string;
                };
                warning?: string;
            };
            /** @description the process that answered (one of several under engage serve --processes N) */
            process: {
                pid: number;
            };
        };
        /** @description A CSV import of contacts: its status, counts, column mapping and row errors */
        Import: {
            id: string;
            /** @enum {string} */
            status: "queued" | "processing" | "completed" | "failed";
            /** @description the list every imported contact joins (POST /v1/lists/{id}/import) */
            list_id: string | null;
            file_name: string | null;
            /** @description data rows in the file */
            rows_total: number;
            /** @description contacts created */
            rows_imported: number;
            /** @description existing contacts updated */
            rows_updated: number;
            rows_failed: number;
            /** @description how each column of the header was mapped */
            columns: {
                header: string;
                /** @description a standard field, custom_fields.<key>, or ignore */
                field: string;
            }[];
            /** @description the first 1,000 rows refused */
            errors: {
                /** @description as a spreadsheet numbers it: the header is row 1 */
                row: number;
                /** @description the header of the column at fault; null: the row as a whole */
                column: string | null;
                message: string;
            }[];
            /** @description why a failed import stopped */
            failure_reason: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            completed_at: string | null;
        };
        /** @description A static list of contacts, with its live member count */
        List: {
            id: string;
            name: string;
            description: string | null;
            /** @description pinned: listed first */
            favorite: boolean;
            /** @description its contacts now */
            member_count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description Why the sending policy holds a queued message back, and until when */
        MessageHold: {
            /**
             * @description quiet_hours: the recipient's quiet hours; marketing_cap: the recipient's marketing messages of 24 h; warmup_cap: the sending domain's warm-up cap of the day
             * @enum {string}
             */
            reason: "quiet_hours" | "marketing_cap" | "warmup_cap";
            /** @description when the dispatcher tries it again (null: not known) */
            until: string | null;
        };
        /** @description A message: its content, status and the time of each status */
        Message: {
            id: string;
            /** @enum {string} */
            status: "scheduled" | "queued" | "sent" | "delivered" | "failed" | "cancelled";
            /** @enum {string} */
            channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
            /** @description the recipient, normalised for its channel ([erased] once erased) */
            to: string;
            message: string;
            /** @description email only, when given */
            htmlmessage?: string;
            /** @description email only, when given */
            subject?: string;
            /** @description email only, when given */
            reply_to?: string;
            /** @description email only, when given */
            from_name?: string;
            /** @description email only, when given */
            headers?: {
                [key: string]: string;
            };
            sender: string | null;
            /** @description whether the sending policy treats it as transactional (transactional: true or category "transactional") */
            transactional: boolean;
            category: string | null;
            webhook_url: string | null;
            scheduled_at: string | null;
            /** @description why it is where it is: a failure's reason (the provider's words while readable, else its category: suppressed, bounced, …), a hold's (as held.reason), or retrying */
            reason: string | null;
            /** @description set while the sending policy holds it back (decided when the dispatcher claims it; a send's answer forecasts it) */
            held: components["schemas"]["MessageHold"] | null;
            provider: string | null;
            provider_message_id: string | null;
            /** @description dispatch attempts so far (a hold is not one) */
            attempts: number;
            /** @description the message this one resends */
            resend_of: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            queued_at: string | null;
            sent_at: string | null;
            delivered_at: string | null;
            failed_at: string | null;
            cancelled_at: string | null;
        };
        /** @description A message just accepted: queued for dispatch, or scheduled */
        AcceptedMessage: {
            id: string;
            /** @enum {string} */
            status: "scheduled" | "queued";
            /** @enum {string} */
            channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
            /** @description the recipient, normalised for its channel */
            to: string;
            scheduled_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description a marketing send the sending policy would hold if it were dispatched now (or at its scheduled time): why and until when, forecast from what has been sent so far */
            held?: components["schemas"]["MessageHold"];
        };
        /** @description A bulk send: the items accepted, and each invalid one with its issues */
        BulkSendResult: {
            accepted: number;
            failed: number;
            /** @description one per item, in the order sent */
            results: ({
                index: number;
                id: string;
                /** @enum {string} */
                status: "scheduled" | "queued";
            } | {
                index: number;
                /** @constant */
                error: "validation_error";
                /** @description each issue of the item: `field: problem; …` */
                message: string;
            })[];
        };
        /** @description Every state change of a message, from its stream */
        MessageTimeline: {
            id: string;
            /** @enum {string} */
            status: "scheduled" | "queued" | "sent" | "delivered" | "failed" | "cancelled";
            events: {
                /** @enum {string} */
                type: "MessageAccepted" | "MessageQueued" | "MessageCancelled" | "MessageDispatching" | "MessageHeld" | "MessageDispatchDeferred" | "MessageSent" | "MessageDelivered" | "MessageFailed" | "MessageLinkClicked" | "MessageOpened";
                /** @description the status the event leads to (null: it changes none) */
                status: ("scheduled" | "queued" | "sent" | "delivered" | "failed" | "cancelled") | null;
                /** Format: date-time */
                at: string;
                /** @description a failure's reason, a hold's, a retry's error, or why it was queued */
                reason: string | null;
                /** @description what the event recorded besides its status and reason (each field only when it has one) */
                details: {
                    provider?: string;
                    provider_message_id?: string;
                    provider_data?: {
                        [key: string]: unknown;
                    };
                    worker?: string;
                    attempt?: number;
                    /** Format: date-time */
                    lease_until?: string;
                    /** Format: date-time */
                    until?: string;
                    /** Format: date-time */
                    retry_at?: string;
                    detail?: string;
                    /** @enum {string} */
                    stage?: "policy" | "provider" | "report";
                    /** @enum {string} */
                    previous_status?: "scheduled" | "queued";
                    /** Format: date-time */
                    scheduled_at?: string;
                    url?: string;
                };
                /** @description the event's revision in the message's stream */
                revision: number;
                /** @description the event's position in the log */
                position: string;
                actor: string | null;
            }[];
        };
        /** @description rules joined by match: all (and) or any (or); a rule set may hold rule sets */
        SegmentRuleSet: {
            /** @enum {string} */
            match: "all" | "any";
            rules: ({
                /** @description contact.<field>, custom.<key>, list, tag, event.<name> or suppressed */
                field: string;
                /** @description one of the field type’s operators (GET /v1/segments/schema) */
                operator: string;
                value?: unknown;
                /** @description event rules only */
                count?: number;
                /** @description event rules only */
                within_days?: number;
            } | components["schemas"]["SegmentRuleSet"])[];
        };
        /** @description A saved rule set with its live count */
        Segment: {
            id: string;
            name: string;
            description: string | null;
            /** @description as stored: key order fixed, phone numbers in E.164 */
            rules: components["schemas"]["SegmentRuleSet"];
            /** @description the contacts it matches now */
            count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The fields a rule may name in this account, their operators and value types, and the limits of a rule set */
        SegmentRuleSchema: {
            fields: {
                /** @description what a rule names: contact.<name>, custom.<key>, list, tag, event.<name> or suppressed */
                field: string;
                label: string;
                /** @enum {string} */
                type: "text" | "number" | "date" | "boolean" | "select" | "list" | "tag" | "event" | "suppressed";
                /** @description select fields only */
                options?: string[];
                operators: {
                    operator: string;
                    /**
                     * @description what its value must be (value_types)
                     * @enum {string}
                     */
                    value: "none" | "string" | "string[]" | "number" | "number_range" | "date" | "day" | "days" | "option" | "option[]" | "list_id";
                    /**
                     * @description event operators that take a count
                     * @enum {string}
                     */
                    count?: "optional" | "required";
                    /**
                     * @description event operators
                     * @constant
                     */
                    within_days?: "optional";
                }[];
            }[];
            /** @description each value type, in words */
            value_types: {
                none: string;
                string: string;
                "string[]": string;
                number: string;
                number_range: string;
                date: string;
                day: string;
                days: string;
                option: string;
                "option[]": string;
                list_id: string;
            };
            /** @description the keys an event rule takes besides value, in words */
            event_keys: {
                count: string;
                within_days: string;
            };
            limits: {
                max_depth: number;
                max_rules: number;
                max_in_values: number;
            };
        };
        /** @description A suppressed (opted-out) email address or phone number: no marketing is sent to it */
        Suppression: {
            /** @description the email address or E.164 phone number; null once erased */
            address: string | null;
            /** @description null when unknown (an erasure of an address never suppressed before) */
            channel: ("email" | "phone") | null;
            /** @enum {string} */
            reason: "complaint" | "unsubscribe" | "stop" | "bounce" | "manual" | "erasure";
            /** @description where it came from: api, one_click, unsubscribe_page, a provider report, … */
            source: string;
            /** Format: date-time */
            created_at: string;
            /** @description the message whose recipient opted out (unsubscribe link, complaint, bounce) */
            message_id?: string;
        };
        /** @description A replay of the account's events from a window of the log to an endpoint, with its deliveries by status */
        WebhookReplay: {
            id: string;
            endpoint_id: string;
            /** @enum {string} */
            status: "scanning" | "delivering" | "completed" | "cancelled";
            /** @description the log position the window starts at */
            from: string;
            /** @description the log position the window ends at */
            until: string;
            /** @description `from` as given */
            from_input: string;
            /** @description `until` as given (null: the end of the log when asked) */
            until_input: string | null;
            /** @description the events it delivers */
            types: ("contact.created" | "contact.updated" | "contact.unsubscribed" | "contact.bounced" | "message.delivered" | "message.failed" | "message.received" | "email.opened" | "campaign.sent" | "form.submitted")[];
            /** @description events found in the window so far */
            found: number;
            delivered: number;
            failed: number;
            pending: number;
            cancelled: number;
            cancel_reason: string | null;
            /** Format: date-time */
            created_at: string;
            completed_at: string | null;
        };
        /** @description A webhook endpoint: where the platform events it subscribes to are delivered, signed */
        WebhookEndpoint: {
            id: string;
            url: string;
            /** @description the events it receives (empty: every one) */
            events: ("contact.created" | "contact.updated" | "contact.unsubscribed" | "contact.bounced" | "message.delivered" | "message.failed" | "message.received" | "email.opened" | "campaign.sent" | "form.submitted")[];
            /** @enum {string} */
            status: "active" | "disabled";
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A delivery of one event to an endpoint, and its attempts */
        WebhookDelivery: {
            id: string;
            endpoint_id: string;
            event_id: string;
            /** @enum {string} */
            event: "contact.created" | "contact.updated" | "contact.unsubscribed" | "contact.bounced" | "message.delivered" | "message.failed" | "message.received" | "email.opened" | "campaign.sent" | "form.submitted";
            /** @enum {string} */
            status: "pending" | "delivered" | "failed" | "cancelled";
            attempts: number;
            /** @description the receiver's status code at the last attempt */
            status_code: number | null;
            latency_ms: number | null;
            /** @description why the last attempt failed */
            error: string | null;
            /** @description pending only */
            next_attempt_at: string | null;
            /** Format: date-time */
            created_at: string;
            delivered_at: string | null;
            /** @description the replay that made it (null: a live delivery) */
            replay_id: string | null;
        };
        /** @description A country's sender requirements: guidance, not legal advice */
        CountrySenderRules: {
            /** @description ISO 3166-1 alpha-2 */
            country: string;
            name: string;
            /** @description whether carriers deliver alphanumeric sender IDs at all */
            alphanumeric_allowed: boolean;
            /** @description sender types that must be registered or approved before use */
            registration_required: ("alphanumeric" | "long_code" | "short_code" | "toll_free")[];
            /** @description typical days from application to approval (null: nothing to register) */
            lead_time_days: number | null;
            notes: string;
        };
        /** @description A registered sender, its review status and the proof of its number */
        Sender: {
            id: string;
            sender: string;
            /** @enum {string} */
            channel: "sms" | "voice" | "whatsapp";
            /** @description ISO 3166-1 alpha-2 */
            country: string;
            /** @enum {string} */
            type: "alphanumeric" | "long_code" | "short_code" | "toll_free";
            /**
             * @description the review status
             * @enum {string}
             */
            status: "pending" | "approved" | "rejected";
            registration_required: boolean;
            rejection_reason: string | null;
            /** @description how far the number is proven the account’s (README "Proving a number") */
            verification: {
                /** @enum {string} */
                status: "not_applicable" | "unverified" | "sending" | "code_sent" | "undelivered" | "locked" | "verified" | "expired" | "lost";
                method: ("sms" | "voice" | "operator_review") | null;
                /** @description while a code is pending */
                expires_at: string | null;
                /** @description while a code is pending, or locked */
                attempts_left: number | null;
                verified_at: string | null;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A sending domain: its DKIM key, the DNS records to publish and their state, signing, BIMI and warm-up */
        EmailDomain: {
            id: string;
            /** @description the ASCII (IDNA) name */
            domain: string;
            unicode_domain: string;
            /** @enum {string} */
            status: "pending" | "verified";
            dkim: {
                selector: string;
                /** @enum {string} */
                algorithm: "rsa-sha256" | "ed25519-sha256";
            };
            /** @description the DNS records to publish, and what the last check found of each */
            records: {
                /** @enum {string} */
                kind: "spf" | "dkim" | "dmarc" | "return_path" | "mx";
                /** @enum {string} */
                type: "TXT" | "CNAME" | "MX";
                name: string;
                value: string;
                /** @description whether it must pass for the domain to be verified */
                required: boolean;
                /**
                 * @description what the last check found (unknown: the lookup failed)
                 * @enum {string}
                 */
                status: "pass" | "fail" | "unknown" | "unchecked";
                /** @description what DNS answered at the last check */
                found: string[];
            }[];
            checked_at: string | null;
            verified_at: string | null;
            /** @description the last signing verdict from pasted headers (POST …/check-signing) */
            signing: {
                /** @enum {string} */
                verdict: "pass" | "fail" | "present" | "missing";
                /** @description what decided the verdict: an aligned DKIM result or signature (null: missing) */
                decided_by: {
                    /** @enum {string} */
                    source: "authentication_results" | "dkim_signature";
                    d: string;
                    s: string | null;
                    /** @enum {string} */
                    alignment: "strict" | "relaxed";
                    result: string | null;
                } | null;
                /** Format: date-time */
                checked_at: string;
            } | null;
            bimi: {
                logo_url: string;
                /** @description the BIMI record to publish */
                record: {
                    /** @constant */
                    type: "TXT";
                    name: string;
                    value: string;
                };
            } | null;
            warmup: {
                /** @enum {string} */
                status: "not_started" | "active" | "paused" | "stopped";
                started_at: string | null;
                /** @description the day of the ramp (null: not warming up) */
                day: number | null;
                /** @description today's cap of marketing email (null: none) */
                cap_today: number | null;
                /** @description marketing email sent from the domain since UTC midnight */
                sent_today: number;
            };
            /** Format: date-time */
            created_at: string;
        };
        /** @description A DMARC aggregate report as stored: its reporter, period, published policy and sending sources */
        DmarcReport: {
            org_name: string;
            report_id: string;
            email: string | null;
            /** Format: date-time */
            begin: string;
            /** Format: date-time */
            end: string;
            domain: string;
            policy: {
                /** @enum {string} */
                p: "none" | "quarantine" | "reject";
                sp: ("none" | "quarantine" | "reject") | null;
                pct: number | null;
                /** @enum {string} */
                adkim: "r" | "s";
                /** @enum {string} */
                aspf: "r" | "s";
            };
            messages: number;
            sources: {
                source_ip: string;
                messages: number;
                dmarc_pass: number;
                dkim_aligned: {
                    pass: number;
                    fail: number;
                };
                spf_aligned: {
                    pass: number;
                    fail: number;
                };
                disposition: {
                    none: number;
                    quarantine: number;
                    reject: number;
                };
                header_from: string[];
            }[];
        };
        /** @description A provider integration: its credentials are sealed and never shown, only a hint */
        Integration: {
            id: string;
            /** @enum {string} */
            provider: "smtp" | "sendgrid" | "twilio" | "twilio_voice" | "twilio_rcs" | "whatsapp_cloud" | "fcm" | "apns";
            /**
             * @description the channel whose messages go through the provider
             * @enum {string}
             */
            channel: "email" | "sms" | "voice" | "rcs" | "whatsapp" | "push";
            name: string;
            credentials: {
                /** @description identifies the credentials without giving any of them away */
                hint: string;
            };
            /** Format: date-time */
            created_at: string;
        };
        /** @description A link domain: the CNAME it must publish, and what its last check found */
        LinkDomain: {
            id: string;
            /** @description the ASCII (IDNA) name */
            domain: string;
            unicode_domain: string;
            /** @enum {string} */
            status: "pending" | "verified";
            /** @description the CNAME record to publish */
            record: {
                /** @constant */
                type: "CNAME";
                name: string;
                value: string;
            };
            /** @description the CNAME targets the last check found */
            found: string[];
            /** @description why the last check could not pass whatever it found (a failed lookup, a domain taken), else null */
            error: string | null;
            checked_at: string | null;
            verified_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description An entry of the balance ledger */
        LedgerEntry: {
            id: string;
            /** Format: date-time */
            at: string;
            /** @enum {string} */
            kind: "message" | "refund" | "top_up" | "conversion";
            /** @description negative for a debit */
            amount: string;
            /** @enum {string} */
            currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
            description: string;
            message_id: string | null;
            channel: ("sms" | "rcs" | "whatsapp" | "voice" | "email" | "push") | null;
            country: string | null;
        };
        /** @description Messages sent, delivered, failed, clicked and opened per UTC day and channel */
        AnalyticsReport: {
            /**
             * Format: date
             * @description a UTC day, YYYY-MM-DD
             */
            from: string;
            /**
             * Format: date
             * @description a UTC day, YYYY-MM-DD
             */
            to: string;
            /** @description the channels counted: the one asked for, or every channel */
            channels: ("sms" | "rcs" | "whatsapp" | "voice" | "email" | "push")[];
            /** @description every day of the range for every channel, zero-filled */
            days: {
                /**
                 * Format: date
                 * @description a UTC day, YYYY-MM-DD
                 */
                day: string;
                /** @enum {string} */
                channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                sent: number;
                delivered: number;
                failed: number;
                clicked: number;
                unique_clicks: number;
                /** @description opens by readers */
                opened: number;
                /** @description messages opened by a reader at least once */
                unique_opens: number;
                /** @description fetches of the open pixel by image proxies (Apple Mail Privacy Protection) or scanners: not readers */
                machine_opens: number;
            }[];
            totals: {
                sent: number;
                delivered: number;
                failed: number;
                clicked: number;
                unique_clicks: number;
                /** @description opens by readers */
                opened: number;
                /** @description messages opened by a reader at least once */
                unique_opens: number;
                /** @description fetches of the open pixel by image proxies (Apple Mail Privacy Protection) or scanners: not readers */
                machine_opens: number;
                /** @description delivered / (delivered + failed), a fraction (0.25 is 25 %); null when there is nothing to divide by */
                delivery_rate: number | null;
                /** @description unique_clicks / delivered, a fraction (0.25 is 25 %); null when there is nothing to divide by */
                click_rate: number | null;
                /** @description unique_opens / delivered (machine opens left out), a fraction (0.25 is 25 %); null when there is nothing to divide by */
                open_rate: number | null;
            };
        };
        /** @description Contacts added, unsubscribed, resubscribed and deleted per UTC day, with the running total */
        ListGrowthReport: {
            /**
             * Format: date
             * @description a UTC day, YYYY-MM-DD
             */
            from: string;
            /**
             * Format: date
             * @description a UTC day, YYYY-MM-DD
             */
            to: string;
            /** @description every day of the range, zero-filled */
            days: {
                /**
                 * Format: date
                 * @description a UTC day, YYYY-MM-DD
                 */
                day: string;
                new: number;
                unsubscribed: number;
                resubscribed: number;
                deleted: number;
                /** @description new − unsubscribed − deleted + resubscribed */
                net: number;
                /** @description contacts at the end of the day */
                total: number;
            }[];
            totals: {
                new: number;
                unsubscribed: number;
                resubscribed: number;
                deleted: number;
                /** @description new − unsubscribed − deleted + resubscribed */
                net: number;
                /** @description contacts at the end of the range */
                total: number;
            };
        };
        /** @description Email bounce and complaint rates over the last 7 and 30 days, judged against the bulk-sender thresholds */
        DeliverabilityReport: {
            /** @constant */
            channel: "email";
            /** @description the last 7 and 30 days, today (UTC) included */
            windows: {
                "7d": {
                    /**
                     * Format: date
                     * @description a UTC day, YYYY-MM-DD
                     */
                    from: string;
                    /**
                     * Format: date
                     * @description a UTC day, YYYY-MM-DD
                     */
                    to: string;
                    sent: number;
                    delivered: number;
                    bounced: number;
                    complaints: number;
                    /** @description bounced / sent, a fraction (0.25 is 25 %); null when there is nothing to divide by */
                    bounce_rate: number | null;
                    /** @description complaints / delivered, a fraction (0.25 is 25 %); null when there is nothing to divide by */
                    complaint_rate: number | null;
                };
                "30d": {
                    /**
                     * Format: date
                     * @description a UTC day, YYYY-MM-DD
                     */
                    from: string;
                    /**
                     * Format: date
                     * @description a UTC day, YYYY-MM-DD
                     */
                    to: string;
                    sent: number;
                    delivered: number;
                    bounced: number;
                    complaints: number;
                    /** @description bounced / sent, a fraction (0.25 is 25 %); null when there is nothing to divide by */
                    bounce_rate: number | null;
                    /** @description complaints / delivered, a fraction (0.25 is 25 %); null when there is nothing to divide by */
                    complaint_rate: number | null;
                };
            };
            health: {
                /** @enum {string} */
                status: "healthy" | "at_risk" | "critical" | "insufficient_data";
                reasons: {
                    /** @enum {string} */
                    metric: "complaint_rate" | "bounce_rate" | "delivered";
                    window: string;
                    /** @enum {string} */
                    status: "at_risk" | "critical" | "insufficient_data";
                    message: string;
                }[];
            };
            thresholds: {
                /** @description a rate is at_risk from at_risk_from, critical from critical_from (fractions) */
                complaint_rate: {
                    at_risk_from: number;
                    critical_from: number;
                    source: string;
                };
                /** @description a rate is at_risk from at_risk_from, critical from critical_from (fractions) */
                bounce_rate: {
                    at_risk_from: number;
                    critical_from: number;
                    source: string;
                };
                /** @description fewer delivered emails in 30 days and no verdict is given */
                min_delivered: number;
            };
        };
        /** @description Delivery and failure rates of every channel over the last 7 and 30 days */
        ChannelDeliverabilityReport: {
            /** @description the days each window covers, today (UTC) included */
            windows: {
                "7d": {
                    /**
                     * Format: date
                     * @description a UTC day, YYYY-MM-DD
                     */
                    from: string;
                    /**
                     * Format: date
                     * @description a UTC day, YYYY-MM-DD
                     */
                    to: string;
                };
                "30d": {
                    /**
                     * Format: date
                     * @description a UTC day, YYYY-MM-DD
                     */
                    from: string;
                    /**
                     * Format: date
                     * @description a UTC day, YYYY-MM-DD
                     */
                    to: string;
                };
            };
            channels: {
                /** @enum {string} */
                channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                windows: {
                    "7d": {
                        sent: number;
                        delivered: number;
                        failed: number;
                        /** @description delivered / (delivered + failed), a fraction (0.25 is 25 %); null when there is nothing to divide by */
                        delivery_rate: number | null;
                        /** @description failed / (delivered + failed), a fraction (0.25 is 25 %); null when there is nothing to divide by */
                        failure_rate: number | null;
                    };
                    "30d": {
                        sent: number;
                        delivered: number;
                        failed: number;
                        /** @description delivered / (delivered + failed), a fraction (0.25 is 25 %); null when there is nothing to divide by */
                        delivery_rate: number | null;
                        /** @description failed / (delivered + failed), a fraction (0.25 is 25 %); null when there is nothing to divide by */
                        failure_rate: number | null;
                    };
                };
            }[];
        };
        /** @description A JSON-RPC 2.0 response: result or error */
        JsonRpcResponse: {
            /** @constant */
            jsonrpc: "2.0";
            id: string | number;
            /** @description the method's result (tools/call: the tool's content, isError when it failed) */
            result?: {
                [key: string]: unknown;
            };
            /** @description an unknown method or invalid params */
            error?: {
                code: number;
                message: string;
                data?: unknown;
            };
        };
        /** @description One change of a resource */
        HistoryEntry: {
            /** @description the event's place in the resource's stream, from 0 */
            revision: number;
            /** @description the event's position in the log */
            position: string;
            /** Format: date-time */
            at: string;
            /** @description the event type, e.g. ContactUpdated */
            type: string;
            /** @description who made the change: an API key id, a user id, system, … */
            actor: string | null;
            /** @description the X-Request-Id of the request that made it */
            request_id: string | null;
            /** @description the fields the event recorded; secrets show as [secret], erased personal data as [erased] */
            changes: {
                [key: string]: unknown;
            };
        };
        /** @description A template as its newest version shows it */
        Template: {
            id: string;
            name: string;
            /** @enum {string} */
            channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
            /** @description the newest version: 1, then one more for each change */
            version: number;
            subject: string | null;
            text: string;
            html: string | null;
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description when the newest version was made
             */
            updated_at: string;
        };
        /** @description One version of a template, as it was saved */
        TemplateVersion: {
            version: number;
            name: string;
            subject: string | null;
            text: string;
            html: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The parts as a send would render them ({{ unsubscribe_url }} stays a placeholder: each message gets its own link) */
        TemplatePreview: {
            subject: string | null;
            text: string;
            html: string | null;
        };
        /** @description The test message, accepted for dispatch */
        TemplateTestSend: {
            id: string;
            /** @enum {string} */
            status: "scheduled" | "queued";
            channel: string;
            to: string;
            scheduled_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The AI writer’s draft, saved as version 1 of a new email template */
        TemplateDraft: {
            template: components["schemas"]["Template"];
            preheader: string;
            /** @description true: made by the built-in fallback, without the provider */
            degraded: boolean;
            /** @description the provider's model (not degraded) */
            model?: string;
            /** @description why the fallback answered: not_configured, or provider_error: … */
            degraded_reason?: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the stores are up (status ok or degraded) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description the database or the event store is down (status unavailable) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description send it as Authorization: Bearer */
                        token: string;
                        /** Format: date-time */
                        expires_at: string;
                        account_id: string;
                        user_id: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account: {
                            id: string;
                            name: string;
                            /** Format: date-time */
                            created_at: string;
                        };
                        /** @description what the request was authenticated with */
                        credential: {
                            /** @enum {string} */
                            type: "api_key";
                            key_id: string;
                            /** @description null: every scope (full access) */
                            scopes: ("read" | "write" | "settings")[] | null;
                        } | {
                            /** @enum {string} */
                            type: "session";
                            user_id: string;
                            /** @enum {string} */
                            role: "owner" | "admin" | "member" | "viewer";
                        };
                        /** @description the signed-in user (a session) */
                        user?: {
                            id: string;
                            email: string;
                            /** @enum {string} */
                            role: "owner" | "admin" | "member" | "viewer";
                        };
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAccountSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountSettings"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAccountSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    default_country?: string | null;
                    timezone?: string | null;
                    /** @enum {string} */
                    template_variables?: "strict" | "lenient";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountSettings"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description every key, in one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ApiKey"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    scopes?: ("read" | "write" | "settings")[] | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description the key itself (ek_live_…): shown this once */
                        key: string;
                        /** @description null: every scope (full access) */
                        scopes: ("read" | "write" | "settings")[] | null;
                        name: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description the new key (ek_live_…): shown this once */
                        key: string;
                        /** @description the old key */
                        replaces: string;
                        /**
                         * Format: date-time
                         * @description the old key works until then (24 hours)
                         */
                        old_key_expires_at: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        revoked: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    eraseAddress: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                    email?: string;
                    phone?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        erasure_id: string;
                        /** Format: date-time */
                        erased_at: string;
                        /** @description the contacts that had the address, erased too */
                        contact_ids: string[];
                        /** @description data keys destroyed: what they sealed is unreadable for good */
                        keys_destroyed: number;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listContacts: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                email?: string;
                phone?: string;
                tag?: string;
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Contact"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createContact: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email?: string | null;
                    phone?: string | null;
                    first_name?: string | null;
                    last_name?: string | null;
                    country?: string | null;
                    language?: string | null;
                    timezone?: string | null;
                    external_id?: string | null;
                    tags?: string[];
                    custom_fields?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description the created contact */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportContacts: {
        parameters: {
            query?: {
                list_id?: string;
                segment_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CSV, UTF-8 with a BOM */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCustomFields: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description every definition, in one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CustomField"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createCustomField: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                    label?: string;
                    /** @enum {string} */
                    type: "text" | "number" | "boolean" | "date" | "select";
                    options?: string[];
                };
            };
        };
        responses: {
            /** @description the new definition */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CustomField"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteCustomField: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email?: string | null;
                    phone?: string | null;
                    first_name?: string | null;
                    last_name?: string | null;
                    country?: string | null;
                    language?: string | null;
                    timezone?: string | null;
                    external_id?: string | null;
                    tags?: string[];
                    custom_fields?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description the contact as updated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    eraseContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description the erasure (the same one when the contact was erased before) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        erased: true;
                        erasure_id: string;
                        /** Format: date-time */
                        erased_at: string;
                        /** @description data keys destroyed: what they sealed is unreadable for good */
                        keys_destroyed: number;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listContactDevices: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description every active device, in one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["PushDevice"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    registerContactDevice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the provider's device token (FCM registration token, APNs device token, web push id) */
                    token: string;
                    /** @enum {string} */
                    platform: "ios" | "android" | "web";
                    /** @description your app (bundle id, package name, site): a contact may have devices of several apps */
                    app_id?: string;
                };
            };
        };
        responses: {
            /** @description the device the contact had with this token (changed when its platform or app_id is) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PushDevice"];
                };
            };
            /** @description the new device */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PushDevice"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteContactDevice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                device_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listLists: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["List"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createList: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description the created list */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["List"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getList: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["List"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteList: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateList: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description the list as updated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["List"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setListFavorite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    favorite: boolean;
                };
            };
        };
        responses: {
            /** @description the list, pinned or not */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["List"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listListContacts: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Contact"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    addListContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    contact_id: string;
                };
            };
        };
        responses: {
            /** @description the list: the contact was on it already */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["List"];
                };
            };
            /** @description the list, with the contact added */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["List"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    removeListContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                contactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the list, without the contact */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["List"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSegmentSchema: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SegmentRuleSchema"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    previewSegment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    rules: components["schemas"]["SegmentRuleSetInput"];
                    sample?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the contacts the rules match now */
                        count: number;
                        /** @description with sample: true, the first 10 of them by id */
                        sample?: components["schemas"]["Contact"][];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSegments: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Segment"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSegment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    description?: string | null;
                    rules: components["schemas"]["SegmentRuleSetInput"];
                };
            };
        };
        responses: {
            /** @description the created segment, with its count */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Segment"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSegment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Segment"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    replaceSegment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    description?: string | null;
                    rules: components["schemas"]["SegmentRuleSetInput"];
                };
            };
        };
        responses: {
            /** @description the segment as replaced, with its count */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Segment"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSegment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSegmentContacts: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Contact"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    trackEvents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    contact: {
                        id?: string;
                        email?: string;
                        phone?: string;
                        external_id?: string;
                    };
                    name: string;
                    properties?: {
                        [key: string]: unknown;
                    };
                    timestamp?: string;
                    id?: string;
                    traits?: {
                        email?: string | null;
                        phone?: string | null;
                        first_name?: string | null;
                        last_name?: string | null;
                        country?: string | null;
                        language?: string | null;
                        timezone?: string | null;
                        external_id?: string | null;
                        tags?: string[];
                        custom_fields?: {
                            [key: string]: unknown;
                        };
                    };
                } | {
                    contact: {
                        id?: string;
                        email?: string;
                        phone?: string;
                        external_id?: string;
                    };
                    name: string;
                    properties?: {
                        [key: string]: unknown;
                    };
                    timestamp?: string;
                    id?: string;
                    traits?: {
                        email?: string | null;
                        phone?: string | null;
                        first_name?: string | null;
                        last_name?: string | null;
                        country?: string | null;
                        language?: string | null;
                        timezone?: string | null;
                        external_id?: string | null;
                        tags?: string[];
                        custom_fields?: {
                            [key: string]: unknown;
                        };
                    };
                }[] | {
                    events: {
                        contact: {
                            id?: string;
                            email?: string;
                            phone?: string;
                            external_id?: string;
                        };
                        name: string;
                        properties?: {
                            [key: string]: unknown;
                        };
                        timestamp?: string;
                        id?: string;
                        traits?: {
                            email?: string | null;
                            phone?: string | null;
                            first_name?: string | null;
                            last_name?: string | null;
                            country?: string | null;
                            language?: string | null;
                            timezone?: string | null;
                            external_id?: string | null;
                            tags?: string[];
                            custom_fields?: {
                                [key: string]: unknown;
                            };
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description each event accepted, a duplicate, or failed with its error (a failed event does not fail the others) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accepted: number;
                        duplicates: number;
                        failed: number;
                        /** @description one per event, in the order sent */
                        results: components["schemas"]["TrackedEventResult"][];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    to: string;
                    /** @enum {string} */
                    channel?: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                    message?: string;
                    htmlmessage?: string;
                    subject?: string;
                    transactional?: boolean;
                    category?: string;
                    sender?: string;
                    reply_to?: string;
                    from_name?: string;
                    headers?: {
                        [key: string]: string;
                    };
                    scheduled_at?: string;
                    webhook_url?: string;
                    /** @description render the message from this template (message, subject and htmlmessage are then left out) */
                    template_id?: string;
                    /** @description the template version to render; the newest when left out */
                    template_version?: number;
                    /** @description the values the template reads as data.<key> */
                    data?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description the message, accepted for dispatch (queued) or scheduled, and the hold it will meet if the sending policy holds it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedMessage"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendBulkMessages: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    messages: unknown[];
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkSendResult"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendMessagesByTag: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tag: string;
                    /** @enum {string} */
                    channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                    message?: string;
                    htmlmessage?: string;
                    subject?: string;
                    transactional?: boolean;
                    category?: string;
                    sender?: string;
                    reply_to?: string;
                    from_name?: string;
                    headers?: {
                        [key: string]: string;
                    };
                    scheduled_at?: string;
                    webhook_url?: string;
                    /** @description render the message from this template (message, subject and htmlmessage are then left out) */
                    template_id?: string;
                    /** @description the template version to render; the newest when left out */
                    template_version?: number;
                    /** @description the values the template reads as data.<key> */
                    data?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description the messages accepted, each item invalid for its contact, and the contacts skipped */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accepted: number;
                        failed: number;
                        /** @description one per contact addressed, in contact order */
                        results: ({
                            index: number;
                            id: string;
                            /** @enum {string} */
                            status: "scheduled" | "queued";
                            contact_id: string;
                        } | {
                            index: number;
                            /** @enum {string} */
                            error: "validation_error";
                            /** @description each issue of the item: `field: problem; …` */
                            message: string;
                            contact_id: string;
                        })[];
                        /** @description contacts carrying the tag without an address on the channel */
                        skipped: number;
                        skipped_contacts: {
                            contact_id: string;
                            reason: string;
                        }[];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listMessages: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "scheduled" | "queued" | "sent" | "delivered" | "failed" | "cancelled";
                channel?: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                to?: string;
                from?: string;
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Message"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the message, cancelled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        status: "cancelled";
                        /** Format: date-time */
                        cancelled_at: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resendMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description the new message, accepted, and the hold it will meet if the sending policy holds it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        status: "scheduled" | "queued";
                        /** @enum {string} */
                        channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                        /** @description the recipient, normalised for its channel */
                        to: string;
                        scheduled_at: string | null;
                        /** Format: date-time */
                        created_at: string;
                        held?: components["schemas"]["MessageHold"];
                        /** @description the message resent */
                        resend_of: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMessageTimeline: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageTimeline"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCampaigns: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "scheduled" | "sending" | "sent" | "cancelled" | "failed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Campaign"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CampaignBodyInput"];
            };
        };
        responses: {
            /** @description the campaign (status sending, or scheduled) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the campaign, with its messages counted by status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        audience: {
                            list_id: string;
                        } | {
                            segment_id: string;
                        };
                        /** @enum {string} */
                        channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                        /** @description left out when a template makes each member’s message */
                        message?: string;
                        template_id?: string;
                        /** @description the version it sends; left out: the newest when it sends */
                        template_version?: number;
                        data?: {
                            [key: string]: unknown;
                        };
                        htmlmessage?: string;
                        subject?: string;
                        reply_to?: string;
                        from_name?: string;
                        headers?: {
                            [key: string]: string;
                        };
                        sender?: string;
                        transactional: boolean;
                        category?: string;
                        webhook_url?: string;
                        /** @enum {string} */
                        status: "scheduled" | "sending" | "sent" | "cancelled" | "failed";
                        scheduled_at: string | null;
                        /** @description messages accepted so far */
                        accepted: number;
                        /** @description members without an address on the channel */
                        skipped: number;
                        /** @description (left out only in the answer of a write the read model had not yet taken in) */
                        failure_reason?: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** @description when its send started */
                        started_at: string | null;
                        /** @description (left out only in the answer of a write the read model had not yet taken in) */
                        sent_at?: string | null;
                        /** @description (left out only in the answer of a write the read model had not yet taken in) */
                        cancelled_at?: string | null;
                        /** @description (left out only in the answer of a write the read model had not yet taken in) */
                        failed_at?: string | null;
                        /** @description the campaign's messages counted by status */
                        messages: {
                            scheduled: number;
                            queued: number;
                            sent: number;
                            delivered: number;
                            failed: number;
                            cancelled: number;
                        };
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the campaign, cancelled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description every endpoint of the account */
                        data: components["schemas"]["WebhookEndpoint"][];
                        /** @description always null: one page */
                        next_cursor: null;
                        /** @description the events an endpoint can subscribe to */
                        events: {
                            /** @enum {string} */
                            name: "contact.created" | "contact.updated" | "contact.unsubscribed" | "contact.bounced" | "message.delivered" | "message.failed" | "message.received" | "email.opened" | "campaign.sent" | "form.submitted";
                            description: string;
                        }[];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    events?: string[];
                };
            };
        };
        responses: {
            /** @description the endpoint, with its signing secret */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        /** @description the events it receives (empty: every one) */
                        events: ("contact.created" | "contact.updated" | "contact.unsubscribed" | "contact.bounced" | "message.delivered" | "message.failed" | "message.received" | "email.opened" | "campaign.sent" | "form.submitted")[];
                        /** @enum {string} */
                        status: "active";
                        /** Format: date-time */
                        created_at: string;
                        /** @description the whsec_ signing secret: shown this once */
                        secret: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url?: string;
                    events?: string[];
                    /** @enum {string} */
                    status?: "active" | "disabled";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    testWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description the ping's outcome */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the receiver answered 2xx */
                        ok: boolean;
                        /** @description the receiver's status code (null: no answer) */
                        status_code: number | null;
                        latency_ms: number;
                        error: string | null;
                        event_id: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "pending" | "delivered" | "failed" | "cancelled";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookDelivery"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    retryWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description the delivery, due now */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description whsec_… */
                        secret: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description the new secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description whsec_… */
                        secret: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhookReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    from: string;
                    until?: string;
                    types?: string[];
                };
            };
        };
        responses: {
            /** @description the replay, scanning the log */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookReplay"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookReplays: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookReplay"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhookReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                replayId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookReplay"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelWebhookReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                replayId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description the replay, cancelled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookReplay"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSuppressions: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                reason?: "complaint" | "unsubscribe" | "stop" | "bounce" | "manual" | "erasure";
                address?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Suppression"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email?: string;
                    phone?: string;
                    /** @enum {string} */
                    reason?: "manual" | "unsubscribe" | "stop";
                };
            };
        };
        responses: {
            /** @description suppressed already: the suppression as it is */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /** @description the new suppression */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the address, no longer suppressed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        address: string;
                        /** @enum {string} */
                        channel: "email" | "phone";
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listConversations: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "open" | "closed";
                channel?: "sms" | "whatsapp" | "email";
                assignee?: string;
                unread?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Conversation"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status?: "open" | "closed";
                    assignee?: string | null;
                    read?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listConversationMessages: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ConversationMessage"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    replyToConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    message: string;
                    htmlmessage?: string;
                    subject?: string;
                    from_name?: string;
                    webhook_url?: string;
                };
            };
        };
        responses: {
            /** @description the reply, a message accepted for dispatch */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        status: "queued";
                        /** @enum {string} */
                        channel: "sms" | "whatsapp" | "email";
                        to: string;
                        conversation_id: string;
                        /** Format: date-time */
                        created_at: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getInboundSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundSettings"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setInboundSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    webhook_url?: string | null;
                    help_text?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundSettings"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSenderRules: {
        parameters: {
            query: {
                country: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CountrySenderRules"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    validateSender: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    sender: string;
                    /** @enum {string} */
                    channel: "sms" | "voice" | "whatsapp" | "email";
                    country?: string;
                };
            };
        };
        responses: {
            /** @description the sender's format, and whether it may send there */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        valid: boolean;
                        /** @description the sender's format (null: none known) */
                        type: ("alphanumeric" | "long_code" | "short_code" | "toll_free" | "email") | null;
                        registration_required: boolean;
                        issues: {
                            code: string;
                            message: string;
                        }[];
                        /** @description typical days to register it, when it must be (null otherwise, or not known) */
                        lead_time_days: number | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSenders: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "pending" | "approved" | "rejected";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Sender"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSender: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    sender: string;
                    /** @enum {string} */
                    channel: "sms" | "voice" | "whatsapp";
                    country: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sender"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    requestSenderVerification: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @default sms
                     * @enum {string}
                     */
                    method?: "sms" | "voice";
                };
            };
        };
        responses: {
            /** @description the sender, its code on the way */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sender"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    verifySender: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description the sender, its number proven */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sender"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSender: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEmailDomains: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["EmailDomain"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createEmailDomain: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    domain: string;
                    /** @enum {string} */
                    dkim_algorithm?: "rsa-sha256" | "ed25519-sha256";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomain"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEmailDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomain"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteEmailDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    verifyEmailDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomain"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    checkEmailDomainSigning: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    headers: string | {
                        [key: string]: string | string[];
                    };
                    authentication_results?: string;
                };
            };
        };
        responses: {
            /** @description the verdict, and every signature and result the headers carry */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        domain: string;
                        /** @enum {string} */
                        verdict: "pass" | "fail" | "present" | "missing";
                        /** @description what decided the verdict: an aligned DKIM result or signature (null: missing) */
                        decided_by: {
                            /** @enum {string} */
                            source: "authentication_results" | "dkim_signature";
                            d: string;
                            s: string | null;
                            /** @enum {string} */
                            alignment: "strict" | "relaxed";
                            result: string | null;
                        } | null;
                        /** @description every DKIM-Signature found */
                        signatures: {
                            d: string;
                            s: string;
                            a: string;
                            i: string | null;
                            signed_headers: string[];
                            alignment: ("strict" | "relaxed") | null;
                            /** @description why the signature cannot count; null when well-formed */
                            malformed: string | null;
                        }[];
                        /** @description every DKIM result of the Authentication-Results found */
                        results: {
                            result: string;
                            d: string | null;
                            s: string | null;
                            authserv_id: string;
                            alignment: ("strict" | "relaxed") | null;
                        }[];
                        /** Format: date-time */
                        checked_at: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setEmailDomainBimiLogo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    logo_url: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        domain: string;
                        logo_url: string | null;
                        /** @description the BIMI record to publish */
                        record: {
                            /** @enum {string} */
                            type: "TXT";
                            name: string;
                            value: string;
                        };
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEmailDomainDmarc: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the recent reports, newest first, and the rollup of the 30 days up to the newest */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        domain: string;
                        reports: {
                            org_name: string;
                            report_id: string;
                            email: string | null;
                            /** Format: date-time */
                            begin: string;
                            /** Format: date-time */
                            end: string;
                            messages: number;
                            policy: {
                                /** @enum {string} */
                                p: "none" | "quarantine" | "reject";
                                sp: ("none" | "quarantine" | "reject") | null;
                                pct: number | null;
                                /** @enum {string} */
                                adkim: "r" | "s";
                                /** @enum {string} */
                                aspf: "r" | "s";
                            };
                            sources: {
                                source_ip: string;
                                messages: number;
                                dmarc_pass: number;
                                dkim_aligned: {
                                    pass: number;
                                    fail: number;
                                };
                                spf_aligned: {
                                    pass: number;
                                    fail: number;
                                };
                                disposition: {
                                    none: number;
                                    quarantine: number;
                                    reject: number;
                                };
                                header_from: string[];
                            }[];
                            /** Format: date-time */
                            received_at: string;
                        }[];
                        rollup: {
                            window_days: number;
                            reports: number;
                            reporters: string[];
                            /** @description YYYY-MM-DD */
                            first_day: string | null;
                            /** @description YYYY-MM-DD */
                            last_day: string | null;
                            messages: number;
                            dmarc_pass: number;
                            dkim_aligned_pass: number;
                            spf_aligned_pass: number;
                            disposition: {
                                none: number;
                                quarantine: number;
                                reject: number;
                            };
                            sources: {
                                source_ip: string;
                                messages: number;
                                dmarc_pass: number;
                                dkim_aligned_pass: number;
                                spf_aligned_pass: number;
                            }[];
                        };
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createEmailDomainDmarcReport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    xml: string;
                };
            };
        };
        responses: {
            /** @description the report was stored already (same reporter and report id): not counted again */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        duplicate: true;
                        report: components["schemas"]["DmarcReport"];
                    };
                };
            };
            /** @description the report, stored */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        duplicate: false;
                        report: components["schemas"]["DmarcReport"];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEmailDomainDmarcReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        domain: string;
                        /** @description every criterion passes */
                        ready: boolean;
                        criteria: {
                            /** @enum {string} */
                            name: "dkim_verified" | "enough_reports" | "dmarc_pass_rate" | "every_sender_aligned";
                            pass: boolean;
                            detail: string;
                            /** @description every_sender_aligned: the sources that hold it back */
                            sources?: string[];
                        }[];
                        /** @description the records to publish to move to p=quarantine */
                        records: {
                            /** @enum {string} */
                            type: "TXT";
                            name: string;
                            value: string;
                            /** @description the domain that publishes it, when not this one */
                            published_by?: string;
                        }[];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    changeEmailDomainWarmup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    action: "start" | "pause" | "resume" | "stop";
                };
            };
        };
        responses: {
            /** @description the domain, its warm-up changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomain"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listIntegrations: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Integration"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    provider: "smtp" | "sendgrid" | "twilio" | "twilio_voice" | "twilio_rcs" | "whatsapp_cloud" | "fcm" | "apns";
                    name?: string;
                    /** @description the provider's credentials (README "Integrations"): smtp {url, from?}; sendgrid {api_key}; twilio {account_sid, auth_token, from?}; twilio_voice {account_sid, auth_token, from?}; twilio_rcs {account_sid, auth_token, messaging_service_sid}; whatsapp_cloud {phone_number_id, access_token}; fcm {service_account: the service account key file, as its JSON object or text}; apns {key_p8: the .p8 key's PEM, key_id, team_id, topic: the app's bundle id, environment?: production | sandbox} */
                    credentials: {
                        [key: string]: string | {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listLinkDomains: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["LinkDomain"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createLinkDomain: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    domain: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LinkDomain"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteLinkDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    verifyLinkDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LinkDomain"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    followTrackedLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the interstitial page: a new account's link on the shared click host */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description to the URL the link had in the message */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    fetchOpenPixel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a transparent 1×1 GIF */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/gif": string;
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPlan: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        tier: "free" | "starter" | "growth" | "scale" | "enterprise";
                        name: string;
                        /** @enum {string} */
                        period: "monthly" | "annual";
                        price: {
                            /** @description null: contact sales */
                            amount: string | null;
                            /** @enum {string} */
                            currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                            /** @enum {string} */
                            period: "month" | "year";
                        };
                        /** @description the messages the plan includes */
                        included: {
                            /**
                             * @description the period the volumes are granted for
                             * @enum {string}
                             */
                            period: "month" | "year";
                            /** @description messages included per channel (null: agreed with sales) */
                            volumes: {
                                sms: number;
                                rcs: number;
                                whatsapp: number;
                                voice: number;
                                email: number;
                                push: number;
                            } | null;
                            per_month: {
                                sms: number;
                                rcs: number;
                                whatsapp: number;
                                voice: number;
                                email: number;
                                push: number;
                            } | null;
                        };
                        usage_this_month: {
                            sms: {
                                messages: number;
                                included: number | null;
                                /** @description null: no allowance */
                                remaining: number | null;
                            };
                            rcs: {
                                messages: number;
                                included: number | null;
                                /** @description null: no allowance */
                                remaining: number | null;
                            };
                            whatsapp: {
                                messages: number;
                                included: number | null;
                                /** @description null: no allowance */
                                remaining: number | null;
                            };
                            voice: {
                                messages: number;
                                included: number | null;
                                /** @description null: no allowance */
                                remaining: number | null;
                            };
                            email: {
                                messages: number;
                                included: number | null;
                                /** @description null: no allowance */
                                remaining: number | null;
                            };
                            push: {
                                messages: number;
                                included: number | null;
                                /** @description null: no allowance */
                                remaining: number | null;
                            };
                        };
                        region: {
                            /** @enum {string} */
                            mode: "global" | "eu" | "us";
                        };
                        upgrade_options: {
                            /** @enum {string} */
                            tier: "free" | "starter" | "growth" | "scale" | "enterprise";
                            name: string;
                            price: {
                                /** @description null: contact sales */
                                amount: string | null;
                                /** @enum {string} */
                                currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                /** @enum {string} */
                                period: "month" | "year";
                            };
                            /** @description the messages the plan includes */
                            included: {
                                /**
                                 * @description the period the volumes are granted for
                                 * @enum {string}
                                 */
                                period: "month" | "year";
                                /** @description messages included per channel (null: agreed with sales) */
                                volumes: {
                                    sms: number;
                                    rcs: number;
                                    whatsapp: number;
                                    voice: number;
                                    email: number;
                                    push: number;
                                } | null;
                                per_month: {
                                    sms: number;
                                    rcs: number;
                                    whatsapp: number;
                                    voice: number;
                                    email: number;
                                    push: number;
                                } | null;
                            };
                            self_serve: boolean;
                        }[];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPricing: {
        parameters: {
            query?: {
                channel?: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                country?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                        prices: {
                            /** @enum {string} */
                            channel: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                            /** @description ISO 3166-1 alpha-2, or '*': everywhere else */
                            country: string;
                            /** @description a decimal amount, e.g. "12.50" */
                            sell: string;
                            /** @enum {string} */
                            currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                        }[];
                        /** @description YYYY-MM-DD: the date of the newest price sheet among them */
                        effective_from: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description YYYY-MM */
                        from: string;
                        /** @description YYYY-MM */
                        to: string;
                        /** @enum {string} */
                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                        months: {
                            /** @description YYYY-MM */
                            month: string;
                            channels: {
                                sms: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                rcs: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                whatsapp: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                voice: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                email: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                push: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                            };
                        }[];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description a decimal amount, e.g. "12.50" */
                        balance: string;
                        /** @enum {string} */
                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                        updated_at: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listBalanceTransactions: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["LedgerEntry"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBillingCurrency: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                        options: ("USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD")[];
                        /** @description what a change does to the balance */
                        conversion: string;
                        /** @description the last change of the billing currency (null: never changed) */
                        last_change: {
                            /** @enum {string} */
                            from: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                            /** @enum {string} */
                            to: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                            rate: string;
                            /** @description YYYY-MM-DD */
                            rates_date: string;
                            /** Format: date-time */
                            at: string;
                        } | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setBillingCurrency: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    currency: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                        /** @enum {string} */
                        previous: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                        /** @description false: it was the billing currency already */
                        changed: boolean;
                        /** @description units of the new currency per unit of the previous one */
                        rate: string;
                        /** @description YYYY-MM-DD: the date of the rates used */
                        rates_date: string;
                        /** @description the balance, converted */
                        balance: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBillingDetails: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        company: string | null;
                        address: {
                            line1: string;
                            line2?: string;
                            city: string;
                            postal_code?: string;
                            region?: string;
                            country: string;
                        } | null;
                        tax_id: {
                            /** @description the kind of number: eu_vat, gb_vat, us_ein, … */
                            type: string;
                            /** @description in its compact form */
                            value: string;
                        } | null;
                        email: string | null;
                        updated_at: string | null;
                        billing_currency: {
                            /** @enum {string} */
                            currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                            conversion: string;
                            /** @description the last change of the billing currency (null: never changed) */
                            last_change: {
                                /** @enum {string} */
                                from: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                /** @enum {string} */
                                to: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                rate: string;
                                /** @description YYYY-MM-DD */
                                rates_date: string;
                                /** Format: date-time */
                                at: string;
                            } | null;
                        };
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setBillingDetails: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    company: string;
                    address: {
                        line1: string;
                        line2?: string;
                        city: string;
                        postal_code?: string;
                        region?: string;
                        country: string;
                    };
                    tax_id?: string;
                    email?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        company: string | null;
                        address: {
                            line1: string;
                            line2?: string;
                            city: string;
                            postal_code?: string;
                            region?: string;
                            country: string;
                        } | null;
                        tax_id: {
                            /** @description the kind of number: eu_vat, gb_vat, us_ein, … */
                            type: string;
                            /** @description in its compact form */
                            value: string;
                        } | null;
                        email: string | null;
                        updated_at: string | null;
                        billing_currency: {
                            /** @enum {string} */
                            currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                            conversion: string;
                            /** @description the last change of the billing currency (null: never changed) */
                            last_change: {
                                /** @enum {string} */
                                from: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                /** @enum {string} */
                                to: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                rate: string;
                                /** @description YYYY-MM-DD */
                                rates_date: string;
                                /** Format: date-time */
                                at: string;
                            } | null;
                        };
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAnalytics: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                channel?: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnalyticsReport"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getListGrowth: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListGrowthReport"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDeliverability: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliverabilityReport"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getChannelDeliverability: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelDeliverabilityReport"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    assistText: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    action: "rewrite" | "shorten" | "lengthen" | "friendly" | "professional" | "fix" | "generate" | "subjects";
                    text?: string;
                    brief?: string;
                    /** @enum {string} */
                    channel?: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
                    subject?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        action: "rewrite" | "shorten" | "lengthen" | "friendly" | "professional" | "fix" | "generate";
                        text: string;
                        /** @description true: made by the built-in fallback, without the provider */
                        degraded: boolean;
                        /** @description the provider's model (not degraded) */
                        model?: string;
                        /** @description why the fallback answered: not_configured, or provider_error: … */
                        degraded_reason?: string;
                    } | {
                        /** @enum {string} */
                        action: "subjects";
                        subjects: string[];
                        /** @description true: made by the built-in fallback, without the provider */
                        degraded: boolean;
                        /** @description the provider's model (not degraded) */
                        model?: string;
                        /** @description why the fallback answered: not_configured, or provider_error: … */
                        degraded_reason?: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    writeEmail: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    brief: string;
                    audience?: string;
                    tone?: string;
                    /** @enum {string} */
                    length?: "short" | "medium" | "long";
                    call_to_action?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        subject: string;
                        preheader: string;
                        html: string;
                        text: string;
                        /** @description true: made by the built-in fallback, without the provider */
                        degraded: boolean;
                        /** @description the provider's model (not degraded) */
                        model?: string;
                        /** @description why the fallback answered: not_configured, or provider_error: … */
                        degraded_reason?: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    requestAiWriter: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    note?: string;
                };
            };
        };
        responses: {
            /** @description the request, standing (or the add-on, enabled already) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "none" | "requested" | "enabled";
                        /** @description when the account asked (null: enabled without asking) */
                        requested_at: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAiWriterStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "none" | "requested" | "enabled";
                        /** @description when the account asked (null: enabled without asking) */
                        requested_at: string | null;
                        enabled: boolean;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    requestAiCoach: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    note?: string;
                };
            };
        };
        responses: {
            /** @description the request, standing (or the add-on, enabled already) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "none" | "requested" | "enabled";
                        /** @description when the account asked (null: enabled without asking) */
                        requested_at: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAiCoachStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "none" | "requested" | "enabled";
                        /** @description when the account asked (null: enabled without asking) */
                        requested_at: string | null;
                        enabled: boolean;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAiRecommendations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description YYYY-MM-DD (UTC) */
                        day: string;
                        recommendations: {
                            title: string;
                            detail: string;
                            /** @enum {string} */
                            priority: "high" | "medium" | "low";
                        }[];
                        /** Format: date-time */
                        generated_at: string;
                        /** @description the day's recommendations, made by an earlier call */
                        cached: boolean;
                        /** @description true: made by the built-in fallback, without the provider */
                        degraded: boolean;
                        /** @description the provider's model (not degraded) */
                        model?: string;
                        /** @description why the fallback answered: not_configured, or provider_error: … */
                        degraded_reason?: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBrandVoice: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the profile the AI helpers write in (null: none set) */
                        brand_voice: {
                            name?: string;
                            tone?: string;
                            audience?: string;
                            style_notes?: string;
                            words_to_use?: string[];
                            words_to_avoid?: string[];
                            sample?: string;
                        } | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setBrandVoice: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    tone?: string;
                    audience?: string;
                    style_notes?: string;
                    words_to_use?: string[];
                    words_to_avoid?: string[];
                    sample?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the profile the AI helpers write in (null: none set) */
                        brand_voice: {
                            name?: string;
                            tone?: string;
                            audience?: string;
                            style_notes?: string;
                            words_to_use?: string[];
                            words_to_avoid?: string[];
                            sample?: string;
                        } | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    checkSpam: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    subject: string;
                    html?: string;
                    text?: string;
                    /** @default true */
                    marketing?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the sum of the issues’ weights */
                        score: number;
                        /** @enum {string} */
                        rating: "good" | "fair" | "poor";
                        issues: {
                            rule: string;
                            message: string;
                            weight: number;
                        }[];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTemplates: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                channel?: "sms" | "rcs" | "whatsapp" | "voice" | "email" | "push";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Template"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TemplateBodyInput"];
            };
        };
        responses: {
            /** @description the created template */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    draftTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TemplateDraftBodyInput"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplateDraft"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TemplatePatchInput"];
            };
        };
        responses: {
            /** @description the template as its newest version shows it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTemplateVersions: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["TemplateVersion"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTemplateVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplateVersion"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    testSendTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TemplateTestSendBodyInput"];
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplateTestSend"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    previewTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TemplatePreviewBodyInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplatePreview"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listForms: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Form"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createForm: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    fields: {
                        name: string;
                        label?: string;
                        required?: boolean;
                    }[];
                    list_id: string;
                    /** @default true */
                    double_opt_in?: boolean;
                    confirmation?: {
                        /** @enum {string} */
                        channel?: "email" | "sms";
                        subject?: string | null;
                        message?: string;
                    };
                    consent_text: string;
                    redirect_url?: string | null;
                    /** @default 3 */
                    min_fill_seconds?: number;
                };
            };
        };
        responses: {
            /** @description the new form, with its hosted page and snippet */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Form"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Form"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    fields?: {
                        name: string;
                        label?: string;
                        required?: boolean;
                    }[];
                    list_id?: string;
                    double_opt_in?: boolean;
                    confirmation?: {
                        /** @enum {string} */
                        channel?: "email" | "sms";
                        subject?: string | null;
                        message?: string;
                    };
                    consent_text?: string;
                    redirect_url?: string | null;
                    min_fill_seconds?: number;
                };
            };
        };
        responses: {
            /** @description the form as changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Form"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listContactHistory: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description oldest first; next_cursor is the last revision shown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HistoryEntry"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listListHistory: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description oldest first; next_cursor is the last revision shown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HistoryEntry"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSegmentHistory: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description oldest first; next_cursor is the last revision shown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HistoryEntry"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listFormHistory: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description oldest first; next_cursor is the last revision shown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HistoryEntry"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTemplateHistory: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description oldest first; next_cursor is the last revision shown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HistoryEntry"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookEndpointHistory: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description oldest first; next_cursor is the last revision shown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HistoryEntry"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiKeyHistory: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description oldest first; next_cursor is the last revision shown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HistoryEntry"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEmailDomainHistory: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description oldest first; next_cursor is the last revision shown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["HistoryEntry"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTrackingKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the public tracking key (etk_…): it can only add events, so it may be in web pages */
                        key: string;
                        /** @description the origins that may use the key; empty: any */
                        origins: string[];
                        require_identity: boolean;
                        /** @description the HTML to paste into every page */
                        snippet: string;
                        script_url: string;
                        ingest_url: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setTrackingOrigins: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    origins: string[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the origins that may use the key; empty: any */
                        origins: string[];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTrackingIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description user_hash is the hex HMAC-SHA256 of the identifier under this secret */
                        secret: string;
                        require_identity: boolean;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setTrackingIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    require_identity: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        require_identity: boolean;
                        /** @description when require_identity is off: what that allows */
                        warning?: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTrackingTraits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the profile traits, which a browser may always set */
                        profile: ("first_name" | "last_name" | "country" | "language" | "timezone")[];
                        /** @description custom field keys a browser may set too */
                        custom_fields: string[];
                        /** @description whether a browser may add tags */
                        tags: boolean;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setTrackingTraits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    custom_fields: string[];
                    /** @default false */
                    tags?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the profile traits, which a browser may always set */
                        profile: ("first_name" | "last_name" | "country" | "language" | "timezone")[];
                        /** @description custom field keys a browser may set too */
                        custom_fields: string[];
                        /** @description whether a browser may add tags */
                        tags: boolean;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateTrackingIdentitySecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description user_hash is the hex HMAC-SHA256 of the identifier under this secret */
                        secret: string;
                        require_identity: boolean;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listImports: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Import"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getImport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Import"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    importContacts: {
        parameters: {
            query?: {
                mapping?: string;
                default_country?: string;
                tags?: string;
                file_name?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /** Format: binary */
                    file: string;
                    mapping?: string;
                    default_country?: string;
                    tags?: string;
                };
                "text/csv": string;
            };
        };
        responses: {
            /** @description the import, queued */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Import"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    importListContacts: {
        parameters: {
            query?: {
                mapping?: string;
                default_country?: string;
                tags?: string;
                file_name?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /** Format: binary */
                    file: string;
                    mapping?: string;
                    default_country?: string;
                    tags?: string;
                };
                "text/csv": string;
            };
        };
        responses: {
            /** @description the import, queued */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Import"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUnsubscribePage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the confirmation page (or, for a recipient erased since, the page saying it is done); a client that prefers JSON gets {unsubscribed} */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        unsubscribed: boolean;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
        };
    };
    unsubscribe: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the page saying it is done; a client that prefers JSON gets {unsubscribed: true} */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @enum {boolean} */
                        unsubscribed: true;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
        };
    };
    ingestBrowserEvents: {
        parameters: {
            query?: {
                key?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key?: string;
                    identity: {
                        email?: string;
                        phone?: string;
                        external_id?: string;
                        user_hash?: string;
                    };
                    traits?: {
                        first_name?: string | null;
                        last_name?: string | null;
                        country?: string | null;
                        language?: string | null;
                        timezone?: string | null;
                        tags?: string[];
                        custom_fields?: {
                            [key: string]: unknown;
                        };
                    };
                    events?: ({
                        /** @enum {string} */
                        type: "track";
                        name: string;
                        properties?: {
                            [key: string]: unknown;
                        };
                        timestamp?: string;
                        id?: string;
                    } | {
                        /** @enum {string} */
                        type: "page";
                        properties?: {
                            [key: string]: unknown;
                        };
                        timestamp?: string;
                        id?: string;
                    })[];
                };
            };
        };
        responses: {
            /** @description each event accepted, a duplicate, or failed with its error (a failed event does not fail the others) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accepted: number;
                        duplicates: number;
                        failed: number;
                        /** @description one per event, in the order sent */
                        results: ({
                            index: number;
                            /** @enum {string} */
                            status: "accepted" | "duplicate";
                            id: string;
                        } | {
                            /** @description its place in the request, from 0 */
                            index: number;
                            /** @enum {string} */
                            status: "failed";
                            /** @description the error code it would have as a request of its own: validation_error, not_found, conflict, … */
                            error: string;
                            message: string;
                            /** @description each invalid field (validation_error) */
                            issues?: {
                                path: string;
                                message: string;
                            }[];
                        })[];
                        /** @description traits the account does not let a browser set: tags, custom_fields.<key>, … */
                        ignored_traits?: string[];
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTrackingSdk: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the SDK script */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/javascript": string;
                };
            };
            /** @description Not modified: If-None-Match names the current ETag */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    registerPushDevice: {
        parameters: {
            query?: {
                key?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key?: string;
                    identity: {
                        email?: string;
                        phone?: string;
                        external_id?: string;
                        user_hash?: string;
                    };
                    /** @description the provider's device token (FCM registration token, APNs device token, web push id) */
                    token: string;
                    /** @enum {string} */
                    platform: "ios" | "android" | "web";
                    /** @description your app (bundle id, package name, site): a contact may have devices of several apps */
                    app_id?: string;
                };
            };
        };
        responses: {
            /** @description the device the contact had with this token */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                    };
                };
            };
            /** @description the new device */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                    };
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    submitForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description the form's fields by name, and the hidden _hp and _started */
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description received (a submission taken for a bot's gets the same answer and is not stored) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /**
                         * @description pending_confirmation: the link is sent (double opt-in); subscribed: the contact is on the list
                         * @enum {string}
                         */
                        status: "pending_confirmation" | "subscribed";
                    };
                };
            };
            /** @description subscribed, and sent on to the form's redirect_url (a browser's form post) */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
        };
    };
    getFormPage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the form */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
        };
    };
    getFormScript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the script */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/javascript": string;
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getFormConfirmation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the confirmation page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Gone: it existed and is no longer available */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
        };
    };
    confirmFormSubmission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the page saying it is done */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description sent on to the form's redirect_url */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Gone: it existed and is no longer available */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/html": string;
                };
            };
        };
    };
    sendMcpMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    jsonrpc: "2.0";
                    /** @description absent in a notification */
                    id?: string | number;
                    /** @description initialize, ping, tools/list, tools/call or a notification */
                    method: string;
                    params?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcResponse"];
                };
            };
            /** @description a notification (or a response), accepted: no body */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        jsonrpc: "2.0";
                        id: (string | number) | null;
                        error: {
                            code: number;
                            message: string;
                            data?: unknown;
                        };
                    } | components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        jsonrpc: "2.0";
                        id: (string | number) | null;
                        error: {
                            code: number;
                            message: string;
                            data?: unknown;
                        };
                    } | components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    runAgentTool: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tool: string;
                    arguments?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description the answer of the tool's route, when it answers 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"] | {
                        id: string;
                        /** @enum {string} */
                        status: "cancelled";
                        /** Format: date-time */
                        cancelled_at: string;
                    } | {
                        data: components["schemas"]["Message"][];
                        next_cursor: string | null;
                    } | {
                        data: components["schemas"]["Contact"][];
                        next_cursor: string | null;
                    } | components["schemas"]["Contact"] | components["schemas"]["Contact"] | {
                        data: components["schemas"]["List"][];
                        next_cursor: string | null;
                    } | components["schemas"]["List"] | {
                        /** @description the contacts the rules match now */
                        count: number;
                        /** @description with sample: true, the first 10 of them by id */
                        sample?: components["schemas"]["Contact"][];
                    } | {
                        data: components["schemas"]["Suppression"][];
                        next_cursor: string | null;
                    } | components["schemas"]["Suppression"] | {
                        address: string;
                        /** @enum {string} */
                        channel: "email" | "phone";
                        /** @enum {boolean} */
                        deleted: true;
                    } | {
                        /** @description YYYY-MM */
                        from: string;
                        /** @description YYYY-MM */
                        to: string;
                        /** @enum {string} */
                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                        months: {
                            /** @description YYYY-MM */
                            month: string;
                            channels: {
                                sms: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                rcs: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                whatsapp: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                voice: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                email: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                                push: {
                                    messages: number;
                                    /** @description a decimal amount, e.g. "12.50" */
                                    amount: string;
                                    /** @enum {string} */
                                    currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    /** @description the month of a currency change: what was charged in the other currency */
                                    other_currencies?: {
                                        messages: number;
                                        /** @description a decimal amount, e.g. "12.50" */
                                        amount: string;
                                        /** @enum {string} */
                                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                                    }[];
                                };
                            };
                        }[];
                    } | {
                        /** @description a decimal amount, e.g. "12.50" */
                        balance: string;
                        /** @enum {string} */
                        currency: "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "SEK" | "NOK" | "DKK" | "NZD" | "SGD";
                        updated_at: string | null;
                    };
                };
            };
            /** @description the answer of the tool's route, when it answers 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"] | components["schemas"]["List"] | components["schemas"]["Suppression"];
                };
            };
            /** @description the answer of the tool's route, when it answers 202 */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedMessage"];
                };
            };
            /** @description Invalid request (validation_error): issues name each invalid field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid credentials (unauthorized): send the API key as X-API-Key, or a session as Authorization: Bearer */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The credential may not do this (insufficient_scope names the missing capabilities, or the role is too low) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found, or not this account’s */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict: the state does not allow it now, an Idempotency-Key was reused with a different body, or the write met another on every retry (send it again) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than this endpoint takes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unsupported Content-Type (the issues name the header) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests (rate_limited): Retry-After says how many seconds to wait */
            429: {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service failed (internal_error, with request_id) or cannot reach its database (unavailable, with Retry-After) */
            "5XX": {
                headers: {
                    /** @description seconds to wait before trying again (on a 429, and on a 503 when the database is unreachable) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
