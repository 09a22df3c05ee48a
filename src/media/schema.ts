import { builder } from '../graphql/builder.ts';
import type { MediaUrls } from './signing.ts';

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
