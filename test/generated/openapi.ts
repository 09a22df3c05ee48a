// Generated from /openapi.json by `npm run openapi:types`; do not edit.

export interface paths {
    "/api/accounts/{accountId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's account: its id and retention; `self` names it without knowing its id */
        get: operations["getAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accessories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's accessories */
        get: operations["listAccessories"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** List or search the activities of an accessory, newest to oldest, a page at a time */
        post: operations["listActivities"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/activities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The account timeline: activities of all the account's accessories (or the chosen ones), newest to oldest, a page at a time */
        post: operations["listTimeline"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/activities/counts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Activities of the account's accessories (or the chosen ones) per hour or day of a time zone, by accessory, relevance or zone */
        post: operations["countActivities"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One activity with every extra field */
        get: operations["getActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ingest many changes across accessories in order, one result per item (JSON array or NDJSON); Idempotency-Key replays the first answer */
        post: operations["ingestBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/zones": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The accessory's zones and when they were last saved (null before the first save) */
        get: operations["getZones"];
        /** Replaces the accessory's zones (at most 5, ids z1..z5, 3..32 vertices in [0, 1], simple polygons) */
        put: operations["saveZones"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accounts/{accountId}/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The calling client's registration on the account */
        get: operations["getNotificationRegistration"];
        /** Registers (or overwrites) the calling client's receiver of server notifications */
        put: operations["registerNotifications"];
        post?: never;
        /** Removes the calling client's registration; what is still queued for it is dropped */
        delete: operations["unregisterNotifications"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accounts/{accountId}/notifications/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enables the calling client's disabled registration again */
        post: operations["enableNotifications"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accounts/{accountId}/notifications/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotates the key of the calling client's registration; the previous key signs too for overlapSeconds */
        post: operations["rotateNotificationKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accounts/{accountId}/notifications/retire-previous-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ends the overlap of the last rotation now: only the current key signs from the next attempt on */
        post: operations["retirePreviousNotificationKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accounts/{accountId}/notifications/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queues the events of a time range sent to the calling client's receiver again, in order, with their original webhook-ids */
        post: operations["replayNotifications"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/event-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The event catalog: every event type, what carries it and the JSON Schemas of its eventData, webhook body and event */
        get: operations["listEventTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accounts/{accountId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's events after a cursor, in order (the ids of live events and webhook-ids); waits up to `wait` seconds for one when there is none yet */
        get: operations["pullEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/export.mp4": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One MP4 of the accessory's clips in a time range
         * @description An accessory of the caller. The MP4s of the activities that overlap `[start, end)` (started before `end`, ended after `start` or still in progress), whole and in start order, joined without re-encoding and streamed as a fragmented MP4 while it is made: no `Content-Length`, no byte ranges. Activities without an MP4, past retention, or whose MP4 could not be packaged are left out. At most EXPORT_MAX_SECONDS between start and end, and clips of at most EXPORT_MAX_BYTES in all (400 naming `end`); 404 when no clip overlaps; 503 with `Retry-After: 5` while every export slot of the instance (EXPORT_CONCURRENCY) is busy, 429 with `Retry-After: 5` while the accessory's account holds its share of them (EXPORT_CONCURRENCY_PER_ACCOUNT). HEAD answers the same without making the MP4. A download is cut (it ends without its closing chunk) when it runs past EXPORT_TIMEOUT_S or its client reads slower than EXPORT_MIN_READ_BYTES_PER_S.
         */
        get: operations["getExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * One MP4 of the accessory's clips in a time range: headers only
         * @description An accessory of the caller. The MP4s of the activities that overlap `[start, end)` (started before `end`, ended after `start` or still in progress), whole and in start order, joined without re-encoding and streamed as a fragmented MP4 while it is made: no `Content-Length`, no byte ranges. Activities without an MP4, past retention, or whose MP4 could not be packaged are left out. At most EXPORT_MAX_SECONDS between start and end, and clips of at most EXPORT_MAX_BYTES in all (400 naming `end`); 404 when no clip overlaps; 503 with `Retry-After: 5` while every export slot of the instance (EXPORT_CONCURRENCY) is busy, 429 with `Retry-After: 5` while the accessory's account holds its share of them (EXPORT_CONCURRENCY_PER_ACCOUNT). HEAD answers the same without making the MP4. A download is cut (it ends without its closing chunk) when it runs past EXPORT_TIMEOUT_S or its client reads slower than EXPORT_MIN_READ_BYTES_PER_S.
         */
        head: operations["headExport"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/signed/{signature}/export.mp4": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One MP4 of the accessory's clips in a time range, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from GraphQL `Accessory.exportUrl` opens this accessory and exactly this range until it expires (MEDIA_URL_TTL_S); a bad or expired one, or another range, is 403. The answer carries `Access-Control-Allow-Origin: *`. The MP4s of the activities that overlap `[start, end)` (started before `end`, ended after `start` or still in progress), whole and in start order, joined without re-encoding and streamed as a fragmented MP4 while it is made: no `Content-Length`, no byte ranges. Activities without an MP4, past retention, or whose MP4 could not be packaged are left out. At most EXPORT_MAX_SECONDS between start and end, and clips of at most EXPORT_MAX_BYTES in all (400 naming `end`); 404 when no clip overlaps; 503 with `Retry-After: 5` while every export slot of the instance (EXPORT_CONCURRENCY) is busy, 429 with `Retry-After: 5` while the accessory's account holds its share of them (EXPORT_CONCURRENCY_PER_ACCOUNT). Each signed URL has a rate limit of its own (EXPORT_URL_RATE_PER_MINUTE; 429 with `Retry-After`). HEAD answers the same without making the MP4. A download is cut (it ends without its closing chunk) when it runs past EXPORT_TIMEOUT_S or its client reads slower than EXPORT_MIN_READ_BYTES_PER_S.
         */
        get: operations["getExportSigned"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * One MP4 of the accessory's clips in a time range: headers only, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from GraphQL `Accessory.exportUrl` opens this accessory and exactly this range until it expires (MEDIA_URL_TTL_S); a bad or expired one, or another range, is 403. The answer carries `Access-Control-Allow-Origin: *`. The MP4s of the activities that overlap `[start, end)` (started before `end`, ended after `start` or still in progress), whole and in start order, joined without re-encoding and streamed as a fragmented MP4 while it is made: no `Content-Length`, no byte ranges. Activities without an MP4, past retention, or whose MP4 could not be packaged are left out. At most EXPORT_MAX_SECONDS between start and end, and clips of at most EXPORT_MAX_BYTES in all (400 naming `end`); 404 when no clip overlaps; 503 with `Retry-After: 5` while every export slot of the instance (EXPORT_CONCURRENCY) is busy, 429 with `Retry-After: 5` while the accessory's account holds its share of them (EXPORT_CONCURRENCY_PER_ACCOUNT). Each signed URL has a rate limit of its own (EXPORT_URL_RATE_PER_MINUTE; 429 with `Retry-After`). HEAD answers the same without making the MP4. A download is cut (it ends without its closing chunk) when it runs past EXPORT_TIMEOUT_S or its client reads slower than EXPORT_MIN_READ_BYTES_PER_S.
         */
        head: operations["headExportSigned"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The activity's JPG
         * @description The activity of an accessory of the caller.
         */
        get: operations["getImage"];
        /**
         * Upload the activity's JPG
         * @description Ingest. The body is streamed to storage: at most MEDIA_MAX_IMAGE_BYTES bytes (413), as `image/jpeg` (415) with matching first bytes (400). With `Content-Digest: sha-256=:<base64>:` or `X-Checksum-SHA256: <hex or base64>` a body that does not match is refused (400) and nothing is kept. Media of a finished activity cannot change (409), except by the same bytes again (200).
         */
        put: operations["putImage"];
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The activity's JPG: headers only
         * @description The activity of an accessory of the caller.
         */
        head: operations["headImage"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/signed/{signature}/image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The activity's JPG, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`.
         */
        get: operations["getImageSigned"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The activity's JPG: headers only, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`.
         */
        head: operations["headImageSigned"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/mp4": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The activity's MP4, with byte ranges
         * @description The activity of an accessory of the caller.
         */
        get: operations["getMp4"];
        /**
         * Upload the activity's MP4 (packaged to HLS and DASH afterwards)
         * @description Ingest. The body is streamed to storage: at most MEDIA_MAX_MP4_BYTES bytes (413), as `video/mp4` (415) with matching first bytes (400). With `Content-Digest: sha-256=:<base64>:` or `X-Checksum-SHA256: <hex or base64>` a body that does not match is refused (400) and nothing is kept. Media of a finished activity cannot change (409), except by the same bytes again (200).
         */
        put: operations["putMp4"];
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The activity's MP4, with byte ranges: headers only
         * @description The activity of an accessory of the caller.
         */
        head: operations["headMp4"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/signed/{signature}/mp4": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The activity's MP4, with byte ranges, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`.
         */
        get: operations["getMp4Signed"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The activity's MP4, with byte ranges: headers only, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`.
         */
        head: operations["headMp4Signed"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/mpd": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The DASH manifest
         * @description The activity of an accessory of the caller. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        get: operations["getDashManifest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The DASH manifest: headers only
         * @description The activity of an accessory of the caller. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        head: operations["headDashManifest"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/signed/{signature}/mpd": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The DASH manifest, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        get: operations["getDashManifestSigned"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The DASH manifest: headers only, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        head: operations["headDashManifestSigned"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/dash/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A DASH init (`.m4s`) or media segment
         * @description The activity of an accessory of the caller. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        get: operations["getDashSegment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * A DASH init (`.m4s`) or media segment: headers only
         * @description The activity of an accessory of the caller. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        head: operations["headDashSegment"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/signed/{signature}/dash/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A DASH init (`.m4s`) or media segment, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        get: operations["getDashSegmentSigned"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * A DASH init (`.m4s`) or media segment: headers only, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        head: operations["headDashSegmentSigned"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/hls/activity.m3u8": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The HLS playlist (fMP4 segments)
         * @description The activity of an accessory of the caller. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        get: operations["getHlsPlaylist"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The HLS playlist (fMP4 segments): headers only
         * @description The activity of an accessory of the caller. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        head: operations["headHlsPlaylist"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/signed/{signature}/hls/activity.m3u8": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The HLS playlist (fMP4 segments), by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        get: operations["getHlsPlaylistSigned"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The HLS playlist (fMP4 segments): headers only, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        head: operations["headHlsPlaylistSigned"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/hls/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An HLS init (`init.mp4`) or media segment (`.m4s`)
         * @description The activity of an accessory of the caller. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        get: operations["getHlsSegment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * An HLS init (`init.mp4`) or media segment (`.m4s`): headers only
         * @description The activity of an accessory of the caller. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        head: operations["headHlsSegment"];
        patch?: never;
        trace?: never;
    };
    "/api/accessories/{accessoryId}/activities/{activityId}/signed/{signature}/hls/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An HLS init (`init.mp4`) or media segment (`.m4s`), by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        get: operations["getHlsSegmentSigned"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * An HLS init (`init.mp4`) or media segment (`.m4s`): headers only, by a signed URL
         * @description No bearer token: the `{signature}` segment of a URL from the `media` extra field (or GraphQL `Activity.media`) is the credential for one activity until it expires (MEDIA_URL_TTL_S); a bad or expired one is 403. The answer carries `Access-Control-Allow-Origin: *`. Packaged from the MP4 in the background after its upload (ffmpeg, `-c copy`): 503 UNAVAILABLE with `Retry-After: 2` until then, 404 if the clip could not be packaged. The relative URLs inside resolve under the same (signed) path.
         */
        head: operations["headHlsSegmentSigned"];
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    activity_created: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An activity was created
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyActivityCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    activity_updated: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An activity in progress changed
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyActivityUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    activity_finished: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An activity ended (its endTime was set, or a newer activity started)
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyActivityFinished"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    activity_media_ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A finished activity's clip is stored and packaged (once per activity)
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyActivityMediaReady"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    motion_started: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The camera saw motion start (registering it needs notifications_motion)
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyMotionStarted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    motion_ended: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The camera saw motion end (registering it needs notifications_motion)
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyMotionEnded"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    account_deleted: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The account was deleted: the last event of the account; every receiver gets it, listed or not
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyAccountDeleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    receiver_disabled: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A receiver of the account was disabled for failing
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyReceiverDisabled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    receiver_enabled: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A disabled receiver of the account was enabled again
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyReceiverEnabled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    delivery_exhausted: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A notification to a receiver of the account was discarded after its last attempt
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyDeliveryExhausted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    test_notification: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sent by sendTestNotification; no event, not registrable
         * @description Sent to each registration of the account that lists the type, signed (Standard Webhooks). Answer 2xx to accept it; any other answer or none is retried, then discarded.
         */
        post: operations["notifyTestNotification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Error: {
            error: {
                /** @enum {string} */
                code: "INVALID_ARGUMENT" | "UNAUTHENTICATED" | "PERMISSION_DENIED" | "NOT_FOUND" | "PERSISTED_QUERY_NOT_FOUND" | "METHOD_NOT_ALLOWED" | "CONFLICT" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "RATE_LIMITED" | "INTERNAL" | "UNAVAILABLE";
                message: string;
                details: {
                    /** @description The offending request field */
                    field?: string;
                    /** @description Filter errors: the character offset in the filter */
                    position?: number;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        /** @description The caller's account */
        Account: {
            accountId: components["schemas"]["Uuid"];
            retentionDays: number;
        };
        /**
         * Format: uuid
         * @description A lower-case UUID v4
         */
        Uuid: string;
        /** @description The caller's accessories, ordered by id; at most 1000 (GraphQL `accessories` pages through any number) */
        AccessoryList: {
            accessories: components["schemas"]["Accessory"][];
        };
        Accessory: {
            accessoryId: components["schemas"]["Uuid"];
            deviceId: string;
            name: string;
            createdAt: components["schemas"]["Timestamp"];
        };
        /**
         * Format: date-time
         * @description ISO 8601 in UTC with `Z`, e.g. 2026-11-21T20:41:17.000Z
         */
        Timestamp: string;
        ActivityPage: {
            /** @description Newest to oldest */
            activities: components["schemas"]["Activity"][];
            /** @description Present exactly when the range holds more activities: continue with it and operator `<` (newest-first scan) or `>` (oldest-first) */
            nextStartActivityId?: string;
        };
        Activity: {
            /** @description The UTC second of creation */
            activityId: string;
            accessoryId: components["schemas"]["Uuid"];
            startTime: components["schemas"]["Timestamp"];
            /** @description null while in progress */
            endTime: components["schemas"]["Timestamp"] | null;
            /** @description Milliseconds; null while in progress */
            playbackDuration: number | null;
            relevanceLevel: number;
            inProgress: boolean;
            /** @description Zone ids: z1..z5, zR */
            motionZones?: string[];
            /** @description Cells of the 16x8 grid over the frame, 0 top-left, row-major */
            objectLocations?: number[];
            /** @description null without any media */
            media?: components["schemas"]["ActivityMedia"] | null;
        };
        /** @description Signed media URLs: they work without a bearer token until they expire (MEDIA_URL_TTL_S); root-relative unless PUBLIC_BASE_URL is set */
        ActivityMedia: {
            /** @description The JPG; null without one */
            image: string | null;
            /** @description The MP4 (byte ranges); null without one */
            mp4: string | null;
            /** @description The DASH manifest; null until the MP4 is packaged */
            mpd: string | null;
            /** @description The HLS playlist; null until the MP4 is packaged */
            hls: string | null;
        };
        /** @description Every field is optional; an empty body lists the newest 20. `startActivityId` and `operator` go together. */
        ActivityListRequest: {
            scanDirectionNewer?: boolean;
            startActivityId?: string;
            /** @enum {string} */
            operator?: "<" | "<=" | ">" | ">=";
            limit?: number;
            filter?: string;
            extraFields?: ("motionZones" | "objectLocations" | "media")[];
        };
        TimelinePage: {
            /** @description Newest to oldest */
            activities: components["schemas"]["Activity"][];
            /** @description Present exactly when the range holds more activities: continue with it and operator `<` (newest-first scan) or `>` (oldest-first) */
            nextStartActivityId?: string;
            /** @description Present with nextStartActivityId: continue with both (startActivityId, startAccessoryId) and operator `<` (newest-first scan) or `>` (oldest-first) */
            nextStartAccessoryId?: string;
        };
        /** @description The listing request (ActivityListRequest) across the accessories of the account, plus accessoryIds and startAccessoryId. */
        TimelineRequest: {
            scanDirectionNewer?: boolean;
            startActivityId?: string;
            /** @enum {string} */
            operator?: "<" | "<=" | ">" | ">=";
            limit?: number;
            filter?: string;
            extraFields?: ("motionZones" | "objectLocations" | "media")[];
            /** @description Only these accessories (1..500), each the caller's (another's: 404); default all of the account's */
            accessoryIds?: string[];
            /** @description With startActivityId: a position between the accessories' activities of that second (the timeline orders them by accessory id); without it, startActivityId bounds by id alone */
            startAccessoryId?: string;
        };
        ActivityCounts: {
            buckets: {
                start: components["schemas"]["Timestamp"];
                count: number;
                accessoryId: string | null;
                relevanceLevel: number | null;
                zoneId: string | null;
            }[];
        };
        /** @description Counts of the activities created from `from` up to `to`, per hour or day of `timeZone`, by the groups asked for */
        ActivityCountsRequest: {
            /**
             * Format: date-time
             * @description ISO 8601 with a zone or Z
             */
            from: string;
            /**
             * Format: date-time
             * @description Exclusive; at most 400 days after from
             */
            to: string;
            /** @enum {string} */
            bucket: "HOUR" | "DAY";
            groupBy?: ("ACCESSORY" | "RELEVANCE" | "ZONE")[];
            filter?: string;
            accessoryIds?: string[];
            /** @description An IANA name; default UTC */
            timeZone?: string;
        };
        /** @description An activity with every extra field */
        ActivityWithExtras: {
            /** @description The UTC second of creation */
            activityId: string;
            accessoryId: components["schemas"]["Uuid"];
            startTime: components["schemas"]["Timestamp"];
            /** @description null while in progress */
            endTime: components["schemas"]["Timestamp"] | null;
            /** @description Milliseconds; null while in progress */
            playbackDuration: number | null;
            relevanceLevel: number;
            inProgress: boolean;
            /** @description Zone ids: z1..z5, zR */
            motionZones: string[];
            /** @description Cells of the 16x8 grid over the frame, 0 top-left, row-major */
            objectLocations: number[];
            /** @description null without any media */
            media: components["schemas"]["ActivityMedia"] | null;
        };
        IngestBatchResults: {
            /** @description One per item, in order */
            results: components["schemas"]["IngestResult"][];
        };
        IngestResult: {
            /** @constant */
            ok: true;
            accessoryId: components["schemas"]["Uuid"];
            /** @description The activity created or changed; absent for reportMotion */
            activityId?: string;
        } | {
            /** @constant */
            ok: false;
            error: {
                code: string;
                message: string;
                details: {
                    [key: string]: unknown;
                };
            };
        };
        IngestItem: {
            /** @constant */
            op: "createActivity";
            accessoryId: components["schemas"]["Uuid"];
            input?: {
                startTime?: components["schemas"]["Timestamp"];
                relevanceLevel?: number;
                motionZones?: string[];
                objectLocations?: number[];
                createdAt?: components["schemas"]["Timestamp"];
            };
        } | {
            /** @constant */
            op: "updateActivity";
            accessoryId: components["schemas"]["Uuid"];
            activityId: string;
            input: {
                startTime?: components["schemas"]["Timestamp"];
                relevanceLevel?: number;
                motionZones?: string[];
                objectLocations?: number[];
            };
        } | {
            /** @constant */
            op: "finishActivity";
            accessoryId: components["schemas"]["Uuid"];
            activityId: string;
            endTime: components["schemas"]["Timestamp"];
        } | {
            /** @constant */
            op: "reportMotion";
            accessoryId: components["schemas"]["Uuid"];
            /** @enum {string} */
            state: "started" | "ended";
            at?: components["schemas"]["Timestamp"];
            motionZones?: string[];
        };
        AccessoryZones: {
            zones: components["schemas"]["Zone"][];
            /** @description When the zones were last saved; null before the first save */
            lastModified: components["schemas"]["Timestamp"] | null;
        };
        Zone: {
            /**
             * @description Unique in the set
             * @enum {string}
             */
            id: "z1" | "z2" | "z3" | "z4" | "z5";
            name: string;
            /** @description Stored in lower case */
            color: string;
            /** @description A simple polygon, (0, 0) top-left of the frame, either orientation */
            vertices: {
                x: number;
                y: number;
            }[];
        };
        ZonesInput: {
            zones: components["schemas"]["Zone"][];
            /** @description Ignored: a GET answer can be sent back as it is */
            lastModified?: string | null;
        };
        /** @description The calling client's receiver on the account; the authKey is never returned */
        NotificationRegistration: {
            accountId: components["schemas"]["Uuid"];
            /** @description The OAuth client the registration belongs to */
            clientId: string;
            url: string;
            eventTypes: ("activity_created" | "activity_updated" | "activity_finished" | "activity_media_ready" | "motion_started" | "motion_ended" | "account_deleted" | "receiver_disabled" | "receiver_enabled" | "delivery_exhausted")[];
            userData: {
                [key: string]: unknown;
            } | null;
            /** @description The filter as registered; null: none */
            filter: string | null;
            maxPerSecond: number | null;
            /**
             * @description disabled: the receiver failed every attempt for WEBHOOK_DISABLE_AFTER_HOURS; nothing is sent until it is registered again or enabled
             * @enum {string}
             */
            state: "active" | "disabled";
            /** @description Since when every attempt failed; null: the last attempt succeeded, or none yet */
            failingSince: components["schemas"]["Timestamp"] | null;
            disabledAt: components["schemas"]["Timestamp"] | null;
            disabledReason: string | null;
            /** @description Until when the previous key signs too (a second v1 signature), after a rotation with an overlap; null: only the current key signs */
            previousKeyUntil: components["schemas"]["Timestamp"] | null;
            /** @enum {string} */
            signing: "hmac-sha256" | "ed25519";
            /** @description ed25519: the public key that verifies the v1a signatures, whpk_ + base64 of its raw 32 bytes (a rotation replaces it); null for hmac-sha256 */
            publicKey: string | null;
            /**
             * @description webhook: POSTed to url; mqtt, amqp, nats: published to the broker at url
             * @enum {string}
             */
            kind: "webhook" | "mqtt" | "amqp" | "nats";
            /** @description A broker kind's topic, routing key or subject template; null for a webhook */
            topic: string | null;
            /** @description amqp: the exchange; null for the other kinds */
            exchange: string | null;
            /** @description Whether broker credentials are set (they are never returned) */
            hasCredentials: boolean;
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        NotificationRegistrationInput: {
            /**
             * Format: uri
             * @description Absolute https URL (http only with WEBHOOK_ALLOW_HTTP), without credentials; a broker kind's: mqtts, amqps or tls (nats) (mqtt, amqp, nats only with WEBHOOK_ALLOW_HTTP)
             */
            url: string;
            /** @description The HMAC key of the signatures; never returned */
            authKey: string;
            /** @description motion_* require notifications_motion; account_deleted is always sent */
            eventTypes: ("activity_created" | "activity_updated" | "activity_finished" | "activity_media_ready" | "motion_started" | "motion_ended" | "account_deleted" | "receiver_disabled" | "receiver_enabled" | "delivery_exhausted")[];
            /** @description Echoed in every notification; a JSON object of at most 4096 bytes; null or left out: none */
            userData?: {
                [key: string]: unknown;
            } | null;
            /** @description Only events matching it are sent: the filter language of listing plus accessoryId, evaluated against the activity of activity_* events and the accessoryId and motionZones of motion_* events; account_deleted always passes. null or left out: every event of the types */
            filter?: string | null;
            /** @description At most this many notifications per second start towards the receiver; the rest wait (none is dropped for it); null or left out: no limit */
            maxPerSecond?: number | null;
            /**
             * @description How webhook-signature is signed: hmac-sha256 (v1, keyed with authKey; the default) or ed25519 (v1a, with a key pair the service generates; the answer publishes publicKey). authKey keys X-Vendor-Verify either way
             * @enum {string}
             */
            signing?: "hmac-sha256" | "ed25519";
            /**
             * @description Where notifications go: webhook (the default, a POST to url), or the broker at url: mqtt, amqp or nats
             * @enum {string}
             */
            kind?: "webhook" | "mqtt" | "amqp" | "nats";
            /** @description Broker kinds: the MQTT topic, AMQP routing key or NATS subject, with the placeholders {accountId}, {accessoryId} (- for events of no accessory) and {eventType} */
            topic?: string;
            /** @description amqp: the exchange published to; left out: '' (the default exchange) */
            exchange?: string;
            /** @description Broker kinds: the broker's user name, with password; never returned */
            username?: string;
            /** @description Broker kinds: the broker's password, with username; never returned */
            password?: string;
        };
        /** @description Nothing: `{}` or an empty body */
        EnableNotificationsInput: Record<string, never>;
        NotificationKeyRotation: {
            accountId: components["schemas"]["Uuid"];
            /** @description The OAuth client the registration belongs to */
            clientId: string;
            url: string;
            eventTypes: ("activity_created" | "activity_updated" | "activity_finished" | "activity_media_ready" | "motion_started" | "motion_ended" | "account_deleted" | "receiver_disabled" | "receiver_enabled" | "delivery_exhausted")[];
            userData: {
                [key: string]: unknown;
            } | null;
            /** @description The filter as registered; null: none */
            filter: string | null;
            maxPerSecond: number | null;
            /**
             * @description disabled: the receiver failed every attempt for WEBHOOK_DISABLE_AFTER_HOURS; nothing is sent until it is registered again or enabled
             * @enum {string}
             */
            state: "active" | "disabled";
            /** @description Since when every attempt failed; null: the last attempt succeeded, or none yet */
            failingSince: components["schemas"]["Timestamp"] | null;
            disabledAt: components["schemas"]["Timestamp"] | null;
            disabledReason: string | null;
            /** @description Until when the previous key signs too (a second v1 signature), after a rotation with an overlap; null: only the current key signs */
            previousKeyUntil: components["schemas"]["Timestamp"] | null;
            /** @enum {string} */
            signing: "hmac-sha256" | "ed25519";
            /** @description ed25519: the public key that verifies the v1a signatures, whpk_ + base64 of its raw 32 bytes (a rotation replaces it); null for hmac-sha256 */
            publicKey: string | null;
            /**
             * @description webhook: POSTed to url; mqtt, amqp, nats: published to the broker at url
             * @enum {string}
             */
            kind: "webhook" | "mqtt" | "amqp" | "nats";
            /** @description A broker kind's topic, routing key or subject template; null for a webhook */
            topic: string | null;
            /** @description amqp: the exchange; null for the other kinds */
            exchange: string | null;
            /** @description Whether broker credentials are set (they are never returned) */
            hasCredentials: boolean;
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
            /** @description The generated key, when none was given: shown here only, never again */
            authKey?: string;
        };
        RotateNotificationKeyInput: {
            /** @description The new key; left out: one is generated and answered in this response only */
            authKey?: string;
            /** @description How long the previous key signs too (default 86400); 0: it is retired at once. A rotation during an overlap retires the key before the current one */
            overlapSeconds?: number;
        };
        /** @description Nothing: `{}` or an empty body */
        RetirePreviousNotificationKeyInput: Record<string, never>;
        /** @description Each replay is a new delivery in the delivery log whose replayOf names the delivery it replays. More than WEBHOOK_REPLAY_MAX (default 10000) notifications in the range, whatever their state: 400 with details.max, nothing queued. Another replay of the registration still running: 409 */
        NotificationReplay: {
            /** @description How many notifications were queued again */
            queued: number;
            from: components["schemas"]["Timestamp"];
            to: components["schemas"]["Timestamp"];
            onlyFailed: boolean;
        };
        ReplayNotificationsInput: {
            /**
             * Format: date-time
             * @description Inclusive
             */
            from: string;
            /**
             * Format: date-time
             * @description Exclusive; later than from
             */
            to: string;
            /** @description Only the events whose last delivery was discarded, gone or dropped; default false (every one not pending) */
            onlyFailed?: boolean;
        };
        EventTypes: components["schemas"]["EventTypeDescription"][];
        EventTypeDescription: {
            eventType: string;
            description: string;
            /** @description Registrations may list it */
            registrable: boolean;
            /** @description What carries it: notifications to each destination kind (webhook, mqtt, amqp, nats), live subscriptions (accountEvents, accessoryEvents), pull */
            channels: ("webhook" | "mqtt" | "amqp" | "nats" | "live" | "pull")[];
            /** @description Why not to use it; null: current */
            deprecated: string | null;
            /** @description The JSON Schema (2020-12) of its eventData */
            schema: {
                [key: string]: unknown;
            };
            /** @description The JSON Schema of its whole webhook body; null: not sent to receivers */
            webhookSchema: {
                [key: string]: unknown;
            } | null;
            /** @description The JSON Schema of the event as live subscriptions stream it and pull answers it; null: not an event of the log */
            eventSchema: {
                [key: string]: unknown;
            } | null;
        };
        PulledEvents: {
            events: components["schemas"]["Event"][];
            /** @description Pass it as `after` to continue: the last event's id, else the `after` given; null: no event yet (pull again without after) */
            next: string | null;
            /** @description More events follow already: pull again at once */
            hasMore: boolean;
        };
        /** @description An event of the log; eventData as its eventType says */
        Event: components["schemas"]["ActivityCreatedEvent"] | components["schemas"]["ActivityUpdatedEvent"] | components["schemas"]["ActivityFinishedEvent"] | components["schemas"]["ActivityMediaReadyEvent"] | components["schemas"]["MotionStartedEvent"] | components["schemas"]["MotionEndedEvent"] | components["schemas"]["AccountDeletedEvent"] | components["schemas"]["ReceiverDisabledEvent"] | components["schemas"]["ReceiverEnabledEvent"] | components["schemas"]["DeliveryExhaustedEvent"] | components["schemas"]["ZonesSavedEvent"] | components["schemas"]["RegistrationDisabledEvent"];
        /** @description An activity was created */
        ActivityCreatedEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "activity_created";
            eventData: components["schemas"]["ActivityEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description The activity as the change left it (as read by id, without media) */
        ActivityEventData: {
            /** @description The UTC second of creation */
            activityId: string;
            accessoryId: components["schemas"]["Uuid"];
            startTime: components["schemas"]["Timestamp"];
            /** @description null while in progress */
            endTime: components["schemas"]["Timestamp"] | null;
            /** @description Milliseconds; null while in progress */
            playbackDuration: number | null;
            relevanceLevel: number;
            inProgress: boolean;
            /** @description Zone ids: z1..z5, zR */
            motionZones: string[];
            /** @description Cells of the 16x8 grid over the frame, 0 top-left, row-major */
            objectLocations: number[];
            /** @description The activity's changes so far, 1 for its creation: keep the highest per activity and ignore lower ones */
            sequence: number;
            /** @description When the change was written */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description An activity in progress changed */
        ActivityUpdatedEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "activity_updated";
            eventData: components["schemas"]["ActivityEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description An activity ended (its endTime was set, or a newer activity started) */
        ActivityFinishedEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "activity_finished";
            eventData: components["schemas"]["ActivityEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description A finished activity's clip is stored and packaged (once per activity) */
        ActivityMediaReadyEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "activity_media_ready";
            eventData: components["schemas"]["MediaReadyEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description The finished activity with signed media URLs, once its clip is stored and packaged */
        MediaReadyEventData: {
            /** @description The UTC second of creation */
            activityId: string;
            accessoryId: components["schemas"]["Uuid"];
            startTime: components["schemas"]["Timestamp"];
            /** @description null while in progress */
            endTime: components["schemas"]["Timestamp"] | null;
            /** @description Milliseconds; null while in progress */
            playbackDuration: number | null;
            relevanceLevel: number;
            inProgress: boolean;
            /** @description Zone ids: z1..z5, zR */
            motionZones: string[];
            /** @description Cells of the 16x8 grid over the frame, 0 top-left, row-major */
            objectLocations: number[];
            /** @description null without any media */
            media: components["schemas"]["ActivityMedia"] | null;
            /** @description When the signed media URLs expire */
            mediaExpiresAt: components["schemas"]["Timestamp"];
            packaging: {
                /**
                 * @description ready: HLS and DASH exist; failed: packaging gave up (error says why); unavailable: the service has no ffmpeg
                 * @enum {string}
                 */
                status: "ready" | "failed" | "unavailable";
                error: string | null;
            };
        };
        /** @description The camera saw motion start (registering it needs notifications_motion) */
        MotionStartedEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "motion_started";
            eventData: components["schemas"]["MotionEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        MotionEventData: {
            accessoryId: components["schemas"]["Uuid"];
            /** @description Zone ids: z1..z5, zR */
            motionZones: string[];
            /** @description When the motion started or ended */
            timestamp: components["schemas"]["Timestamp"];
        };
        /** @description The camera saw motion end (registering it needs notifications_motion) */
        MotionEndedEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "motion_ended";
            eventData: components["schemas"]["MotionEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description The account was deleted: the last event of the account; every receiver gets it, listed or not */
        AccountDeletedEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "account_deleted";
            eventData: components["schemas"]["EmptyEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description `{}` */
        EmptyEventData: Record<string, never>;
        /** @description A receiver of the account was disabled for failing */
        ReceiverDisabledEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "receiver_disabled";
            eventData: components["schemas"]["ReceiverDisabledEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description A receiver failed every attempt for WEBHOOK_DISABLE_AFTER_HOURS and was disabled: nothing is sent to it until it is registered again or enabled */
        ReceiverDisabledEventData: {
            /** @description The OAuth client whose receiver it is */
            clientId: string;
            /** @description The receiver's URL */
            url: string;
            /** @description Since when every attempt failed */
            failingSince: components["schemas"]["Timestamp"];
            disabledAt: components["schemas"]["Timestamp"];
            reason: string;
        };
        /** @description A disabled receiver of the account was enabled again */
        ReceiverEnabledEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "receiver_enabled";
            eventData: components["schemas"]["ReceiverEnabledEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description A disabled receiver was enabled again */
        ReceiverEnabledEventData: {
            /** @description The OAuth client whose receiver it is */
            clientId: string;
            /** @description The receiver's URL */
            url: string;
            /** @description When it had been disabled */
            disabledAt: components["schemas"]["Timestamp"];
            enabledAt: components["schemas"]["Timestamp"];
            /**
             * @description enable: enableNotifications (POST .../enable); register: registered again
             * @enum {string}
             */
            cause: "enable" | "register";
        };
        /** @description A notification to a receiver of the account was discarded after its last attempt */
        DeliveryExhaustedEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "delivery_exhausted";
            eventData: components["schemas"]["DeliveryExhaustedEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description A notification failed its last attempt and was discarded (redeliverNotification sends it again). None is recorded for a delivery_exhausted notification. */
        DeliveryExhaustedEventData: {
            /** @description The delivery in the delivery log */
            deliveryId: string;
            /** @description The webhook-id its attempts carried */
            webhookId: string;
            /** @description The event notified; null for a test */
            eventId: string | null;
            /** @description Its eventType (test_notification for a test) */
            eventType: string;
            /** @description The OAuth client whose receiver it is */
            clientId: string;
            /** @description The receiver's URL */
            url: string;
            /** @description Attempts in its last round */
            attempts: number;
            /** @description The last answer's HTTP status */
            lastStatus: number | null;
            /** @description Why the last attempt had no status */
            lastError: ("timeout" | "dns" | "connect" | "tls" | "blocked_address" | "protocol" | "key_unavailable") | null;
            discardedAt: components["schemas"]["Timestamp"];
        };
        /** @description An accessory's zones were saved (not sent to receivers) */
        ZonesSavedEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "zones_saved";
            eventData: components["schemas"]["ZonesSavedEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        /** @description The accessory's zones as saved */
        ZonesSavedEventData: {
            zones: components["schemas"]["Zone"][];
            /** @description When the zones were last saved; null before the first save */
            lastModified: components["schemas"]["Timestamp"] | null;
            accessoryId: components["schemas"]["Uuid"];
        };
        /** @description What receiver_disabled was called before; no longer recorded, only events of an older release */
        RegistrationDisabledEvent: {
            /** @description Increases in commit order per account; the webhook-id of its notifications; pass it as `after` to resume */
            eventId: string;
            accountId: components["schemas"]["Uuid"];
            /** @description null for an event of the account */
            accessoryId: components["schemas"]["Uuid"] | null;
            /** @constant */
            eventType: "registration_disabled";
            eventData: components["schemas"]["ReceiverDisabledEventData"];
            /** @description When it was recorded */
            occurredAt: components["schemas"]["Timestamp"];
        };
        MediaUpload: {
            accessoryId: components["schemas"]["Uuid"];
            activityId: string;
            /** @enum {string} */
            kind: "image" | "mp4";
            contentType: string;
            size: number;
            /** @description Hex; also the `ETag` */
            sha256: string;
            uploadedAt: components["schemas"]["Timestamp"];
            /** @description MP4: how far HLS/DASH packaging is; null for an image */
            packaging: ("queued" | "running" | "ready" | "failed") | null;
        };
        /** @description An activity was created */
        ActivityCreatedNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "activity_created";
            eventData: components["schemas"]["ActivityEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description An activity in progress changed */
        ActivityUpdatedNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "activity_updated";
            eventData: components["schemas"]["ActivityEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description An activity ended (its endTime was set, or a newer activity started) */
        ActivityFinishedNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "activity_finished";
            eventData: components["schemas"]["ActivityEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description A finished activity's clip is stored and packaged (once per activity) */
        ActivityMediaReadyNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "activity_media_ready";
            eventData: components["schemas"]["MediaReadyEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description The camera saw motion start (registering it needs notifications_motion) */
        MotionStartedNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "motion_started";
            eventData: components["schemas"]["MotionEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description The camera saw motion end (registering it needs notifications_motion) */
        MotionEndedNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "motion_ended";
            eventData: components["schemas"]["MotionEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description The account was deleted: the last event of the account; every receiver gets it, listed or not */
        AccountDeletedNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "account_deleted";
            eventData: components["schemas"]["EmptyEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description A receiver of the account was disabled for failing */
        ReceiverDisabledNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "receiver_disabled";
            eventData: components["schemas"]["ReceiverDisabledEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description A disabled receiver of the account was enabled again */
        ReceiverEnabledNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "receiver_enabled";
            eventData: components["schemas"]["ReceiverEnabledEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description A notification to a receiver of the account was discarded after its last attempt */
        DeliveryExhaustedNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "delivery_exhausted";
            eventData: components["schemas"]["DeliveryExhaustedEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
        /** @description Sent by sendTestNotification; no event, not registrable */
        TestNotificationNotification: {
            accountId: components["schemas"]["Uuid"];
            /** @constant */
            eventType: "test_notification";
            eventData: components["schemas"]["EmptyEventData"];
            /** @description The registration's userData; left out when it has none */
            userData?: {
                [key: string]: unknown;
            };
        };
    };
    responses: {
        /** @description INVALID_ARGUMENT: malformed JSON, wrong types, unknown fields or values out of range; `details.field` names the field */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description UNAUTHENTICATED: no token, or a malformed, expired or badly signed one */
        Unauthenticated: {
            headers: {
                /** @description `Bearer` */
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description PERMISSION_DENIED: the token lacks the scope (`details.scope`) */
        PermissionDenied: {
            headers: {
                /** @description `Bearer error="insufficient_scope", scope="..."` */
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description NOT_FOUND: no such resource, or one of another account */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description CONFLICT */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description PAYLOAD_TOO_LARGE: the body is over the limit */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description UNSUPPORTED_MEDIA_TYPE: the body is not of the content type required */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description INVALID_ARGUMENT: the range starts at or after the end of the object */
        RangeNotSatisfiable: {
            headers: {
                /** @description `bytes *\/{size}` */
                "Content-Range"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description UNAVAILABLE: try again after `Retry-After` seconds */
        Unavailable: {
            headers: {
                /** @description Seconds */
                "Retry-After"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Any other error: RATE_LIMITED (429, with `Retry-After`), INTERNAL (500), UNAVAILABLE (503, with `Retry-After`) */
        Error: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getAccount: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The caller's own account id, or `self` */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's account */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    listAccessories: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's accessories, ordered by id; at most 1000 (GraphQL `accessories` pages through any number) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessoryList"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            default: components["responses"]["Error"];
        };
    };
    listActivities: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ActivityListRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActivityPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    listTimeline: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["TimelineRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TimelinePage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    countActivities: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ActivityCountsRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActivityCounts"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    getActivity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An activity with every extra field */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActivityWithExtras"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    ingestBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["IngestItem"] | unknown)[];
                "application/x-ndjson": components["schemas"]["IngestItem"] | unknown;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestBatchResults"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    getZones: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
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
                    "application/json": components["schemas"]["AccessoryZones"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    saveZones: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ZonesInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessoryZones"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    getNotificationRegistration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The caller's own account id, or `self` */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The calling client's receiver on the account; the authKey is never returned */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationRegistration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    registerNotifications: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The caller's own account id, or `self` */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NotificationRegistrationInput"];
            };
        };
        responses: {
            /** @description The calling client's receiver on the account; the authKey is never returned */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationRegistration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    unregisterNotifications: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The caller's own account id, or `self` */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    enableNotifications: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The caller's own account id, or `self` */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EnableNotificationsInput"];
            };
        };
        responses: {
            /** @description The calling client's receiver on the account; the authKey is never returned */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationRegistration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    rotateNotificationKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The caller's own account id, or `self` */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RotateNotificationKeyInput"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationKeyRotation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    retirePreviousNotificationKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The caller's own account id, or `self` */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RetirePreviousNotificationKeyInput"];
            };
        };
        responses: {
            /** @description The calling client's receiver on the account; the authKey is never returned */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationRegistration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    replayNotifications: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The caller's own account id, or `self` */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReplayNotificationsInput"];
            };
        };
        responses: {
            /** @description Each replay is a new delivery in the delivery log whose replayOf names the delivery it replays. More than WEBHOOK_REPLAY_MAX (default 10000) notifications in the range, whatever their state: 400 with details.max, nothing queued. Another replay of the registration still running: 409 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationReplay"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    listEventTypes: {
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
                    "application/json": components["schemas"]["EventTypes"];
                };
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            default: components["responses"]["Error"];
        };
    };
    pullEvents: {
        parameters: {
            query?: {
                /** @description The last eventId you have (a pull's `next`); left out: from the oldest event the log holds */
                after?: string;
                /** @description Events per page at most */
                limit?: number;
                /** @description Seconds to wait for an event when none follows `after` yet (a long poll) */
                wait?: number;
            };
            header?: never;
            path: {
                /** @description The caller's own account id, or `self` */
                accountId: string;
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
                    "application/json": components["schemas"]["PulledEvents"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            default: components["responses"]["Error"];
        };
    };
    getExport: {
        parameters: {
            query: {
                /** @description The range start (inclusive): ISO 8601 with a zone, e.g. `2026-11-21T20:00:00Z` */
                start: string;
                /** @description The range end (exclusive), after start: ISO 8601 with a zone, e.g. `2026-11-21T20:00:00Z` */
                end: string;
            };
            header?: never;
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The MP4, streamed */
            200: {
                headers: {
                    /** @description `attachment; filename="export-{accessoryId}-{start}-{end}.mp4"` */
                    "Content-Disposition"?: string;
                    /** @description `no-store` */
                    "Cache-Control"?: string;
                    /** @description `none` */
                    "Accept-Ranges"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            /** @description RATE_LIMITED: the account runs as many exports on this instance as it may; try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headExport: {
        parameters: {
            query: {
                /** @description The range start (inclusive): ISO 8601 with a zone, e.g. `2026-11-21T20:00:00Z` */
                start: string;
                /** @description The range end (exclusive), after start: ISO 8601 with a zone, e.g. `2026-11-21T20:00:00Z` */
                end: string;
            };
            header?: never;
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The MP4, streamed */
            200: {
                headers: {
                    /** @description `attachment; filename="export-{accessoryId}-{start}-{end}.mp4"` */
                    "Content-Disposition"?: string;
                    /** @description `no-store` */
                    "Cache-Control"?: string;
                    /** @description `none` */
                    "Accept-Ranges"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            /** @description RATE_LIMITED: the account runs as many exports on this instance as it may; try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    getExportSigned: {
        parameters: {
            query: {
                /** @description The range start (inclusive): ISO 8601 with a zone, e.g. `2026-11-21T20:00:00Z` */
                start: string;
                /** @description The range end (exclusive), after start: ISO 8601 with a zone, e.g. `2026-11-21T20:00:00Z` */
                end: string;
            };
            header?: never;
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The MP4, streamed */
            200: {
                headers: {
                    /** @description `attachment; filename="export-{accessoryId}-{start}-{end}.mp4"` */
                    "Content-Disposition"?: string;
                    /** @description `no-store` */
                    "Cache-Control"?: string;
                    /** @description `none` */
                    "Accept-Ranges"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description PERMISSION_DENIED: the signature is not valid for this accessory and range, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description RATE_LIMITED: the account runs as many exports on this instance as it may, or this URL was asked for too often; try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headExportSigned: {
        parameters: {
            query: {
                /** @description The range start (inclusive): ISO 8601 with a zone, e.g. `2026-11-21T20:00:00Z` */
                start: string;
                /** @description The range end (exclusive), after start: ISO 8601 with a zone, e.g. `2026-11-21T20:00:00Z` */
                end: string;
            };
            header?: never;
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The MP4, streamed */
            200: {
                headers: {
                    /** @description `attachment; filename="export-{accessoryId}-{start}-{end}.mp4"` */
                    "Content-Disposition"?: string;
                    /** @description `no-store` */
                    "Cache-Control"?: string;
                    /** @description `none` */
                    "Accept-Ranges"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description PERMISSION_DENIED: the signature is not valid for this accessory and range, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description RATE_LIMITED: the account runs as many exports on this instance as it may, or this URL was asked for too often; try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    getImage: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            default: components["responses"]["Error"];
        };
    };
    putImage: {
        parameters: {
            query?: never;
            header?: {
                /** @description RFC 9530, e.g. `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:` */
                "Content-Digest"?: string;
                /** @description The SHA-256 of the body, hex or base64 */
                "X-Checksum-SHA256"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "image/jpeg": string;
            };
        };
        responses: {
            /** @description Replaced (or the same bytes again) */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaUpload"];
                };
            };
            /** @description Stored: the first upload */
            201: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaUpload"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    headImage: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            default: components["responses"]["Error"];
        };
    };
    getImageSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            default: components["responses"]["Error"];
        };
    };
    headImageSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            default: components["responses"]["Error"];
        };
    };
    getMp4: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            default: components["responses"]["Error"];
        };
    };
    putMp4: {
        parameters: {
            query?: never;
            header?: {
                /** @description RFC 9530, e.g. `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:` */
                "Content-Digest"?: string;
                /** @description The SHA-256 of the body, hex or base64 */
                "X-Checksum-SHA256"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "video/mp4": string;
            };
        };
        responses: {
            /** @description Replaced (or the same bytes again) */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaUpload"];
                };
            };
            /** @description Stored: the first upload */
            201: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaUpload"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            default: components["responses"]["Error"];
        };
    };
    headMp4: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            default: components["responses"]["Error"];
        };
    };
    getMp4Signed: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            default: components["responses"]["Error"];
        };
    };
    headMp4Signed: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            default: components["responses"]["Error"];
        };
    };
    getDashManifest: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/dash+xml": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/dash+xml": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headDashManifest: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    getDashManifestSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/dash+xml": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/dash+xml": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headDashManifestSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    getDashSegment: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description A file named by the playlist or manifest */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                    "video/iso.segment": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                    "video/iso.segment": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headDashSegment: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description A file named by the playlist or manifest */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    getDashSegmentSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
                /** @description A file named by the playlist or manifest */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                    "video/iso.segment": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                    "video/iso.segment": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headDashSegmentSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
                /** @description A file named by the playlist or manifest */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    getHlsPlaylist: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.apple.mpegurl": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.apple.mpegurl": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headHlsPlaylist: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    getHlsPlaylistSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.apple.mpegurl": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.apple.mpegurl": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headHlsPlaylistSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    getHlsSegment: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description A file named by the playlist or manifest */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                    "video/iso.segment": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                    "video/iso.segment": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headHlsSegment: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description A file named by the playlist or manifest */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthenticated"];
            403: components["responses"]["PermissionDenied"];
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    getHlsSegmentSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
                /** @description A file named by the playlist or manifest */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                    "video/iso.segment": string;
                };
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                    "video/iso.segment": string;
                };
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    headHlsSegmentSigned: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-1023` or `bytes=-500`; several ranges, another unit or bad syntax are answered with the whole object (200) */
                Range?: string;
                /** @description An ETag seen before: 304 when it still matches */
                "If-None-Match"?: string;
                /** @description An ETag or date: the range is served only if the object is still that one */
                "If-Range"?: string;
            };
            path: {
                /** @description An accessory id */
                accessoryId: components["schemas"]["Uuid"];
                /** @description An activity id, YYYYMMDDTHHMMSSZ */
                activityId: string;
                /** @description `{expires}.{mac}`, from a signed media URL */
                signature: string;
                /** @description A file named by the playlist or manifest */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole object */
            200: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The byte range asked for */
            206: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    /** @description `max-age=10` while the activity is in progress, `private, max-age=31536000, immutable` once it is finished */
                    "Cache-Control"?: string;
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description The bytes sent */
                    "Content-Length"?: string;
                    /** @description When the media was uploaded */
                    "Last-Modified"?: string;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `If-None-Match` matched the ETag */
            304: {
                headers: {
                    /** @description Strong: the SHA-256 of the object, in hex */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description PERMISSION_DENIED: the signature is not valid, or it expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            416: components["responses"]["RangeNotSatisfiable"];
            503: components["responses"]["Unavailable"];
            default: components["responses"]["Error"];
        };
    };
    notifyActivityCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ActivityCreatedNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyActivityUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ActivityUpdatedNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyActivityFinished: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ActivityFinishedNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyActivityMediaReady: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ActivityMediaReadyNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyMotionStarted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MotionStartedNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyMotionEnded: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MotionEndedNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyAccountDeleted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccountDeletedNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyReceiverDisabled: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReceiverDisabledNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyReceiverEnabled: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReceiverEnabledNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyDeliveryExhausted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeliveryExhaustedNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    notifyTestNotification: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id (its eventId), or test_<deliveryId>; the same on every attempt */
                "webhook-id": string;
                /** @description Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description `v1,` + base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of the authKey; for a registration with signing ed25519, `v1a,` + base64 of the ed25519 signature of the same, verified with its publicKey. During a key rotation's overlap, two space-separated signatures, the new key's first */
                "webhook-signature": string;
                /** @description Legacy: base64 of the HMAC-SHA256 of the body alone, keyed with the authKey (the new one from a rotation on); it signs no time and no id, prefer webhook-signature */
                "X-Vendor-Verify": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TestNotificationNotification"];
            };
        };
        responses: {
            /** @description Gone: the registration is removed; nothing more is sent */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Accepted */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else: retried after each delay, then discarded */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
