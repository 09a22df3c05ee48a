import { AccessoryRef } from './accessories.ts';
import { builder } from '../builder.ts';
import type { MediaUrls } from '../../activities/model.ts';

/** `Activity.media`: signed URLs, usable in `<img>` and `<video>` tags. */
export const ActivityMediaRef = builder.objectRef<MediaUrls>('ActivityMedia').implement({
  description:
    'Signed media URLs of an activity: they work without a bearer token until they expire (MEDIA_URL_TTL_S). Root-relative unless PUBLIC_BASE_URL is set.',
  fields: (t) => ({
    image: t.exposeString('image', { nullable: true, description: 'The JPG; null without one.' }),
    mp4: t.exposeString('mp4', {
      nullable: true,
      description: 'The MP4 (byte ranges); null without one.',
    }),
    mpd: t.exposeString('mpd', {
      nullable: true,
      description: 'The DASH manifest; null until the MP4 is packaged.',
    }),
    hls: t.exposeString('hls', {
      nullable: true,
      description: 'The HLS playlist; null until the MP4 is packaged.',
    }),
  }),
});

builder.objectFields(AccessoryRef, (t) => ({
  exportUrl: t.string({
    nullable: true,
    description:
      'A signed URL of one MP4 joining the clips of the activities that overlap [start, end) (whole clips, in start order, without re-encoding); null when no such clip has an MP4 now. It works without a bearer token until it expires (MEDIA_URL_TTL_S). At most EXPORT_MAX_SECONDS between start and end, with clips of at most EXPORT_MAX_BYTES in all (INVALID_ARGUMENT naming `end` otherwise, or when end is not after start). Each URL may be asked for a few times a minute (EXPORT_URL_RATE_PER_MINUTE; 429 beyond).',
    authScopes: { activities_basic: true },
    args: {
      start: t.arg({ type: 'DateTime', required: true }),
      end: t.arg({ type: 'DateTime', required: true }),
    },
    resolve: async (accessory, args, ctx) =>
      ctx.services.media.exports.url(
        accessory.accessoryId,
        { start: args.start, end: args.end },
        (await ctx.ownAccount()).accountId,
      ),
  }),
}));
