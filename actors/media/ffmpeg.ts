/**
 * Video and audio through the `ffmpeg` and `ffprobe` programs, when the
 * machine has them (Debian's `ffmpeg` package). Nothing requires them: with
 * neither on the PATH, {@link ffmpegAvailable} says so once and large
 * formats are kept as uploaded (see processing.ts).
 */
import { getLogger } from "@logtape/logtape";

const logger = getLogger(["rookery", "media"]);

/** Longest a single ffmpeg run may take before it is killed and the media fails. */
const RUN_TIMEOUT_MS = 15 * 60_000;
/** Mastodon's video_matrix_limit and video_frame_rate_limit. */
const VIDEO_MATRIX_LIMIT = 8_294_400;
const VIDEO_FRAME_RATE_LIMIT = 120;

async function runs(program: string): Promise<boolean> {
  try {
    const out = await new Deno.Command(program, {
      args: ["-version"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

/**
 * Whether both `ffmpeg` and `ffprobe` run here. Asks the machine at each
 * call: the media worker (processing.ts, MediaWork) asks once per process.
 */
export async function ffmpegAvailable(): Promise<boolean> {
  const [a, b] = await Promise.all([runs("ffmpeg"), runs("ffprobe")]);
  logger.info(
    a && b
      ? "ffmpeg found: video and audio uploads are transcoded."
      : "ffmpeg/ffprobe not found: video and audio uploads are kept as uploaded.",
  );
  return a && b;
}

async function run(program: string, args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command(program, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
  }).output();
  if (!out.success) {
    const message = new TextDecoder().decode(out.stderr).slice(0, 500);
    throw new Error(`${program} failed: ${message}`);
  }
  return out.stdout;
}

/** What ffprobe tells of a file, in the terms of Mastodon's `meta`. */
export interface MediaProbe {
  duration: number | null;
  bitrate: number | null;
  video: { width: number; height: number; frameRate: string | null } | null;
  audio: { codec: string; bitrate: number | null; channels: string | null } | null;
}

function num(value: unknown): number | null {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** Reads the streams of a file. */
export async function probeMedia(file: string): Promise<MediaProbe> {
  const out = await run("ffprobe", [
    "-v",
    "error",
    "-print_format",
    "json",
    "-show_format",
    "-show_streams",
    file,
  ]);
  const data = JSON.parse(new TextDecoder().decode(out));
  const streams: Record<string, unknown>[] = data.streams ?? [];
  // Cover art in audio files is an attached picture, not video.
  const video = streams.find((s) =>
    s.codec_type === "video" &&
    !((s.disposition as Record<string, number> | undefined)?.attached_pic)
  );
  const audio = streams.find((s) => s.codec_type === "audio");
  return {
    duration: num(data.format?.duration),
    bitrate: num(data.format?.bit_rate),
    video: video && num(video.width) && num(video.height)
      ? {
        width: Number(video.width),
        height: Number(video.height),
        frameRate: typeof video.avg_frame_rate === "string" && video.avg_frame_rate !== "0/0"
          ? video.avg_frame_rate
          : null,
      }
      : null,
    audio: audio
      ? {
        codec: String(audio.codec_name ?? "unknown"),
        bitrate: num(audio.bit_rate),
        channels: typeof audio.channel_layout === "string" ? audio.channel_layout : null,
      }
      : null,
  };
}

/**
 * Transcodes to what every browser plays: H.264/AAC MP4 for video (sound
 * kept when there is some), MP3 for audio. Metadata is dropped, the frame is
 * kept within Mastodon's video matrix and frame-rate limits.
 */
export async function transcode(
  input: string,
  output: string,
  kind: "video" | "audio",
): Promise<void> {
  const common = ["-nostdin", "-y", "-v", "error", "-i", input, "-map_metadata", "-1"];
  if (kind === "audio") {
    await run("ffmpeg", [...common, "-vn", "-c:a", "libmp3lame", "-q:a", "2", output]);
    return;
  }
  const fit = `if(gt(iw*ih\\,${VIDEO_MATRIX_LIMIT})\\,sqrt(${VIDEO_MATRIX_LIMIT}/(iw*ih))\\,1)`;
  await run("ffmpeg", [
    ...common,
    "-map",
    "0:v:0",
    "-map",
    "0:a:0?",
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "23",
    "-pix_fmt",
    "yuv420p",
    "-vf",
    `scale=trunc(iw*${fit}/2)*2:trunc(ih*${fit}/2)*2`,
    "-fpsmax",
    String(VIDEO_FRAME_RATE_LIMIT),
    "-c:a",
    "aac",
    "-b:a",
    "128k",
    "-movflags",
    "+faststart",
    output,
  ]);
}

/** The first frame of a video as PNG bytes. */
export function firstFrame(input: string): Promise<Uint8Array> {
  return run("ffmpeg", [
    "-nostdin",
    "-v",
    "error",
    "-i",
    input,
    "-frames:v",
    "1",
    "-f",
    "image2pipe",
    "-c:v",
    "png",
    "pipe:1",
  ]);
}
