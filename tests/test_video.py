"""Video to motion: landmark files, the One-Euro filter, the landmark solver (bone directions
against the source clip, joint limits, visibility, root height and travel), retargeting the result,
video decoding, and pose detection (only with a model file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import data_path, robot_or_skip
from kinemorph.errors import ConfigError, KinemorphError, MotionFileError
from kinemorph.motion import Motion, load_motion
from kinemorph.video import (
    LandmarkClip,
    OneEuroConfig,
    SolverConfig,
    VideoError,
    VideoReader,
    accuracy,
    convert,
    one_euro,
    read_landmarks,
    save_landmarks,
    solve_landmarks,
    synthetic_landmarks,
)
from kinemorph.video.accuracy import BONES, bone_errors
from kinemorph.video.blazepose import INDEX, MP_TO_WORLD
from kinemorph.video.detect import MODEL_ENV, MODEL_URL, Detection, detect_frames, detect_video, resolve_model
from kinemorph.video.solver import resample


def limb_errors(robot_name: str, a: Motion, b: Motion) -> np.ndarray:
    return accuracy.limb_errors(robot_or_skip(robot_name), a, b)


@pytest.fixture(scope="module")
def walk_clip(generated_walk: Motion) -> LandmarkClip:
    return synthetic_landmarks(generated_walk, noise=0.01, seed=1)


# --- landmark files ---------------------------------------------------------------------------


def test_landmark_file_round_trip(walk_clip: LandmarkClip, tmp_path: Path) -> None:
    path = save_landmarks(walk_clip, tmp_path / "lm.npz")
    back = read_landmarks(path)
    np.testing.assert_array_equal(back.landmarks, walk_clip.landmarks)
    np.testing.assert_array_equal(back.visibility, walk_clip.visibility)
    assert back.image_landmarks is not None and walk_clip.image_landmarks is not None
    np.testing.assert_array_equal(back.image_landmarks, walk_clip.image_landmarks)
    assert back.fps == walk_clip.fps and back.image_size == walk_clip.image_size


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        ({"landmarks": np.zeros((5, 17, 3))}, "shape (T>0, 33, 3)"),
        ({"landmarks": np.zeros((5, 33, 2))}, "shape (T>0, 33, 3)"),
        ({"landmarks": np.where(np.arange(5)[:, None, None] == 3, np.nan, np.zeros((5, 33, 3)))}, "frame 3"),
        ({"landmarks": np.zeros((5, 33, 3)), "visibility": np.full((5, 33), 2.0)}, "[0, 1]"),
        ({"landmarks": np.zeros((5, 33, 3)), "fps": np.array(-3.0)}, "fps"),
        ({"landmarks": np.zeros((5, 33, 3), dtype=bool)}, "dtype bool"),
        ({"keypoints": np.zeros((5, 33, 3))}, "missing key 'landmarks'"),
        ({"landmarks": np.zeros((5, 33, 3)), "image_landmarks": np.zeros((5, 33, 3))}, "image_size"),
    ],
)
def test_bad_landmark_file_is_refused(arrays: dict, message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(MotionFileError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        read_landmarks(path)


def test_pickled_landmark_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "obj.npz"
    np.savez(path, landmarks=np.array([{"a": 1}], dtype=object))
    with pytest.raises(MotionFileError, match=str(path)):
        read_landmarks(path)


# --- One-Euro filter --------------------------------------------------------------------------


def test_one_euro_without_beta_is_the_exponential_filter() -> None:
    fps, fc = 60.0, 2.0
    x = np.random.default_rng(0).normal(size=(200, 3))
    y = one_euro(x, fps, OneEuroConfig(min_cutoff=fc, beta=0.0, zero_lag=False))
    a = 1.0 / (1.0 + fps / (2.0 * np.pi * fc))
    ref = x.copy()
    for t in range(1, len(x)):
        ref[t] = ref[t - 1] + a * (x[t] - ref[t - 1])
    np.testing.assert_allclose(y, ref, rtol=0, atol=1e-12)


def test_one_euro_step_response_settles_without_overshoot() -> None:
    fps = 100.0
    x = np.where(np.arange(300) >= 50, 1.0, 0.0)
    cfg = OneEuroConfig(min_cutoff=1.0, beta=0.0, zero_lag=False)
    y = one_euro(x, fps, cfg)
    assert y.max() <= 1.0 + 1e-12 and np.all(np.diff(y) >= -1e-12)
    # first-order low-pass: time constant 1 / (2 pi fc) = 0.16 s; 63 % reached after about one tau
    tau_frames = fps / (2.0 * np.pi)
    reached = int(np.argmax(y >= 1.0 - np.exp(-1.0))) - 50
    assert abs(reached - tau_frames) <= 2.0
    # a higher beta follows the step faster (the speed raises the cutoff)
    fast = one_euro(x, fps, OneEuroConfig(min_cutoff=1.0, beta=5.0, zero_lag=False))
    assert int(np.argmax(fast >= 0.9)) < int(np.argmax(y >= 0.9))


def test_one_euro_lag_on_a_ramp_and_zero_lag_option() -> None:
    fps = 50.0
    t = np.arange(500) / fps
    x = 0.5 * t  # 0.5 units/s
    causal = one_euro(x, fps, OneEuroConfig(min_cutoff=1.0, beta=0.0, zero_lag=False))
    lag_s = (x[200:400] - causal[200:400]).mean() / 0.5
    # an exponential filter trails a ramp by its time constant (less the sampling half step)
    assert lag_s == pytest.approx(1.0 / (2 * np.pi * 1.0) - 0.5 / fps, abs=0.01)
    quicker = one_euro(x, fps, OneEuroConfig(min_cutoff=1.0, beta=2.0, zero_lag=False))
    assert (x[200:400] - quicker[200:400]).mean() < 0.5 * (x[200:400] - causal[200:400]).mean()
    offline = one_euro(x, fps, OneEuroConfig(min_cutoff=1.0, beta=0.0, zero_lag=True))
    assert np.abs(offline[100:400] - x[100:400]).max() < 1e-3


def test_one_euro_removes_jitter() -> None:
    x = np.random.default_rng(3).normal(0.0, 0.01, size=(600, 33, 3))
    y = one_euro(x, 30.0, OneEuroConfig())
    assert y.std() < 0.4 * x.std()


def test_one_euro_rejects_bad_parameters() -> None:
    with pytest.raises(ConfigError, match="min_cutoff"):
        OneEuroConfig(min_cutoff=0.0)
    with pytest.raises(ConfigError, match="beta"):
        OneEuroConfig(beta=-1.0)


# --- solver -----------------------------------------------------------------------------------


def test_solver_recovers_the_procedural_walk_exactly_without_noise(generated_walk: Motion) -> None:
    clip = synthetic_landmarks(generated_walk, noise=0.0)
    fit = solve_landmarks(clip, config=SolverConfig(smoothing=OneEuroConfig(enabled=False)))
    err = bone_errors(generated_walk, fit.motion)
    assert np.median(err) < 0.05 and err.max() < 2.0
    assert fit.report.rejected_frames == 0


def test_solver_bone_directions_on_the_procedural_walk(generated_walk: Motion, walk_clip: LandmarkClip) -> None:
    fit = solve_landmarks(walk_clip)
    err = bone_errors(generated_walk, fit.motion)
    assert np.median(err) < 5.0
    assert np.median(err, axis=0).max() < 5.0  # every bone, not only most
    assert fit.report.rejected_frames == 0 and fit.report.filled == 0


def test_solver_puts_the_lowest_foot_on_the_floor(generated_walk: Motion, walk_clip: LandmarkClip) -> None:
    from kinemorph.video.blazepose import marker_positions

    fit = solve_landmarks(walk_clip)
    feet = [INDEX[n] for n in ("left_heel", "right_heel", "left_foot_index", "right_foot_index")]
    low_fit = marker_positions(fit.motion)[:, feet, 2].min(axis=1)
    low_src = marker_positions(generated_walk)[:, feet, 2].min(axis=1)
    assert np.abs(low_fit - low_fit[0]).max() < 1e-6  # on the same floor in every frame
    assert abs(np.median(low_fit) - np.median(low_src)) < 0.01
    hips = fit.motion.positions[:, 0, 2]
    assert abs(np.median(hips) - np.median(generated_walk.positions[:, 0, 2])) < 0.03


def test_root_travel_comes_from_the_image(generated_walk: Motion, walk_clip: LandmarkClip) -> None:
    fit = solve_landmarks(walk_clip)
    assert fit.report.travel == "image"
    src = generated_walk.positions[:, 0, :2] - generated_walk.positions[0, 0, :2]
    got = fit.motion.positions[:, 0, :2] - fit.motion.positions[0, 0, :2]
    assert np.linalg.norm(src[-1]) > 4.0  # the walk goes somewhere
    assert np.median(np.linalg.norm(got - src, axis=1)) < 0.05


def test_without_image_landmarks_the_root_stays_in_place(walk_clip: LandmarkClip) -> None:
    clip = LandmarkClip(landmarks=walk_clip.landmarks, visibility=walk_clip.visibility, fps=walk_clip.fps)
    fit = solve_landmarks(clip)
    assert fit.report.travel == "in place" and "in place" in fit.report.notes[0]
    assert np.abs(fit.motion.positions[:, 0, :2]).max() == 0.0
    with pytest.raises(ConfigError, match="image landmarks"):
        solve_landmarks(clip, config=SolverConfig(travel="image"))


def test_low_visibility_landmarks_are_filled_from_neighbours(generated_walk: Motion, walk_clip: LandmarkClip) -> None:
    lm, vis = walk_clip.landmarks.copy(), walk_clip.visibility.copy()
    hidden = slice(100, 115)
    for name in ("left_knee", "left_ankle", "left_wrist"):
        lm[hidden, INDEX[name]] += 0.4  # what a detector reports for an occluded joint
        vis[hidden, INDEX[name]] = 0.05
    clip = LandmarkClip(landmarks=lm, visibility=vis, fps=walk_clip.fps, image_landmarks=walk_clip.image_landmarks,
                        image_size=walk_clip.image_size)  # fmt: skip
    fit = solve_landmarks(clip)
    assert fit.report.low_visibility == 45
    touched = [BONES.index(b) for b in ("LeftLeg", "LeftFoot", "LeftForeArm", "LeftHand")]
    err = bone_errors(generated_walk, fit.motion)[hidden][:, touched]
    assert np.median(err) < 6.0
    # without the visibility the same frames go far off
    blind = solve_landmarks(LandmarkClip(landmarks=lm, visibility=np.ones_like(vis), fps=walk_clip.fps))
    assert np.median(bone_errors(generated_walk, blind.motion)[hidden][:, touched]) > 2 * max(np.median(err), 3.0)


def test_joint_limits_reject_a_knee_bent_forwards(generated_walk: Motion, walk_clip: LandmarkClip) -> None:
    lm = walk_clip.landmarks @ MP_TO_WORLD.T  # Z-up
    bad = slice(150, 156)
    hip, knee = lm[bad, INDEX["right_hip"]], lm[bad, INDEX["right_knee"]]
    # fold the shank forwards: the ankle ends up in front of the knee at thigh height
    fwd = np.cross(lm[bad, INDEX["left_hip"]] - lm[bad, INDEX["right_hip"]], [0.0, 0.0, 1.0])
    fwd /= np.linalg.norm(fwd, axis=1, keepdims=True)
    new_ankle = knee + 0.4 * fwd + 0.2 * (hip - knee) / np.linalg.norm(hip - knee, axis=1, keepdims=True)
    shift = new_ankle - lm[bad, INDEX["right_ankle"]]
    for name in ("right_ankle", "right_heel", "right_foot_index"):
        lm[bad, INDEX[name]] += shift
    clip = LandmarkClip(landmarks=lm @ MP_TO_WORLD, visibility=walk_clip.visibility, fps=walk_clip.fps)
    off = OneEuroConfig(enabled=False)
    kept = solve_landmarks(clip, config=SolverConfig(joint_limits=False, smoothing=off))
    fit = solve_landmarks(clip, config=SolverConfig(smoothing=off))
    assert fit.report.rejected["RightUpLeg"] + fit.report.rejected["RightLeg"] >= 6
    assert fit.report.rejected_frames <= 12
    shank = BONES.index("RightFoot")  # the bone from knee to ankle
    shank_err = bone_errors(generated_walk, fit.motion)[bad, shank]
    kept_err = bone_errors(generated_walk, kept.motion)[bad, shank]
    assert np.median(kept_err) > 60.0 and np.median(shank_err) < 20.0


def test_resampling_changes_the_frame_rate(walk_clip: LandmarkClip) -> None:
    fast = resample(walk_clip, 30.0, 60.0)
    assert fast.num_frames == 2 * walk_clip.num_frames - 1
    np.testing.assert_allclose(fast.landmarks[::2], walk_clip.landmarks, atol=1e-12)
    fit = solve_landmarks(walk_clip, config=SolverConfig(fps=60.0))
    assert fit.motion.fps == 60.0 and fit.motion.num_frames == fast.num_frames


def test_missing_fps_is_asked_for(walk_clip: LandmarkClip) -> None:
    clip = LandmarkClip(landmarks=walk_clip.landmarks, visibility=walk_clip.visibility)
    with pytest.raises(ConfigError, match="--fps"):
        solve_landmarks(clip)
    assert solve_landmarks(clip, config=SolverConfig(fps=25.0)).motion.fps == 25.0


def test_procedural_walk_retargets_like_the_source(generated_walk: Motion, walk_clip: LandmarkClip) -> None:
    fit = solve_landmarks(walk_clip)
    err = limb_errors("unitree_g1", generated_walk, fit.motion)
    assert np.median(err) < 10.0 and np.median(err, axis=0).max() < 10.0


@pytest.mark.data
@pytest.mark.parametrize("clip_name", ["walk.bvh", "dance.bvh"])
def test_lafan1_clips_through_landmarks(clip_name: str, tmp_path: Path) -> None:
    source = load_motion(data_path(clip_name))
    clip = synthetic_landmarks(source, noise=0.01, seed=2)
    fit = solve_landmarks(clip)
    err = bone_errors(source, fit.motion)
    assert np.median(err) < 5.0
    assert fit.report.rejected_frames <= 0.01 * fit.report.frames  # a real person stays within the limits
    # the BVH the solver writes retargets like the original clip
    save_landmarks(clip, tmp_path / "lm.npz")
    convert(tmp_path / "lm.npz", tmp_path / "fit.bvh")
    fitted = load_motion(tmp_path / "fit.bvh")
    assert fitted.preset == "lafan1"
    limbs = limb_errors("unitree_g1", source, fitted)
    assert np.median(limbs) < 10.0 and np.median(limbs, axis=0).max() < 10.0


# --- conversion -------------------------------------------------------------------------------


def test_convert_writes_a_bvh_and_the_landmarks(walk_clip: LandmarkClip, tmp_path: Path) -> None:
    save_landmarks(walk_clip, tmp_path / "in.npz")
    fit = convert(tmp_path / "in.npz", tmp_path / "out.bvh", landmarks_out=tmp_path / "copy.npz")
    back = load_motion(tmp_path / "out.bvh")
    assert back.preset == "lafan1" and back.num_frames == walk_clip.num_frames
    np.testing.assert_allclose(back.positions, fit.motion.positions, atol=1e-4)
    np.testing.assert_array_equal(read_landmarks(tmp_path / "copy.npz").landmarks, walk_clip.landmarks)


def test_failed_conversion_writes_nothing(tmp_path: Path) -> None:
    np.savez(tmp_path / "bad.npz", landmarks=np.full((4, 33, 3), np.nan))
    with pytest.raises(MotionFileError, match="non-finite"):
        convert(tmp_path / "bad.npz", tmp_path / "out.bvh", landmarks_out=tmp_path / "lm.npz")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(MotionFileError, match="unsupported input"):
        convert(tmp_path / "notes.txt", tmp_path / "out.bvh")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.npz", "notes.txt"]


# --- video decoding and detection ---------------------------------------------------------------


def _write_video(path: Path, frames: int = 12, fps: float = 24.0) -> np.ndarray:
    """A short H.264 video of a white square moving right over a dark background."""
    import imageio_ffmpeg

    h, w = 64, 96
    video = np.full((frames, h, w, 3), 20, dtype=np.uint8)
    for i in range(frames):
        video[i, 24:40, 8 + 5 * i : 24 + 5 * i] = 235
    writer = imageio_ffmpeg.write_frames(str(path), (w, h), fps=fps, macro_block_size=16, ffmpeg_log_level="error")
    writer.send(None)
    for f in video:
        writer.send(f)
    writer.close()
    return video


def test_video_decoding(tmp_path: Path) -> None:
    path = tmp_path / "square.mp4"
    made = _write_video(path)
    with VideoReader(path) as video:
        assert video.info.fps == pytest.approx(24.0) and video.info.size == (96, 64)
        frames = np.array(list(video))
    assert frames.shape == made.shape
    assert np.abs(frames.astype(int) - made.astype(int)).mean() < 4.0  # lossy codec, same picture
    for i in (0, 11):  # the square is where it was drawn
        cols = np.nonzero(frames[i, 32, :, 0] > 128)[0]
        assert abs(cols.mean() - (15.5 + 5 * i)) < 1.5


def test_unreadable_or_missing_video_is_one_clear_error(tmp_path: Path) -> None:
    fake = tmp_path / "clip.mp4"
    fake.write_text("not a video")
    with pytest.raises(VideoError, match="not a readable video"), VideoReader(fake):
        pass
    with pytest.raises(VideoError, match="no such video file"), VideoReader(tmp_path / "none.webm"):
        pass


def test_missing_pose_model_says_where_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MODEL_ENV, raising=False)
    with pytest.raises(VideoError, match=MODEL_ENV) as err:
        resolve_model(None)
    assert MODEL_URL in str(err.value)
    with pytest.raises(VideoError, match="no such pose model file"):
        resolve_model(tmp_path / "pose.task")
    _write_video(tmp_path / "v.mp4")
    with pytest.raises(VideoError, match="pose_landmarker"):
        convert(tmp_path / "v.mp4", tmp_path / "out.bvh")
    assert not (tmp_path / "out.bvh").exists()


def test_frames_without_a_person_are_filled_and_counted(walk_clip: LandmarkClip) -> None:
    image = walk_clip.image_landmarks
    assert image is not None
    missing = {5, 6, 7, 40}

    def detector(frame: np.ndarray, ms: int) -> Detection | None:
        i = int(frame[0, 0, 0])
        if i in missing:
            return None
        return Detection(world=walk_clip.landmarks[i], image=image[i], visibility=np.ones(33))

    frames = (np.full((2, 2, 3), i, dtype=np.uint8) for i in range(60))
    clip = detect_frames(frames, detector, fps=30.0, size=(1280, 720), source="test")
    assert clip.num_detected == 56 and clip.detected is not None and not clip.detected[list(missing)].any()
    np.testing.assert_allclose(clip.landmarks[6], 0.5 * (walk_clip.landmarks[4] + walk_clip.landmarks[8]), atol=1e-12)
    assert np.isfinite(clip.landmarks).all() and (clip.visibility[list(missing)] == 0).all()
    fit = solve_landmarks(clip)
    assert fit.report.filled == 4 and fit.report.detected == 56
    with pytest.raises(VideoError, match="no person detected in any of its 3 frames"):
        detect_frames((np.zeros((2, 2, 3), np.uint8) for _ in range(3)), lambda f, t: None, fps=30.0, size=(2, 2),
                      source="empty")  # fmt: skip


def test_core_and_solver_import_without_mediapipe() -> None:
    code = "import sys, kinemorph, kinemorph.video; print('mediapipe' in sys.modules, 'imageio_ffmpeg' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def _model_or_skip() -> Path:
    given = os.environ.get(MODEL_ENV)
    if not given or not Path(given).is_file():
        pytest.skip(f"no MediaPipe Pose Landmarker model: set {MODEL_ENV} to a .task file ({MODEL_URL})")
    pytest.importorskip("mediapipe", reason="pose detection needs the [video] extra (mediapipe)")
    return Path(given)


def test_detection_finds_no_person_in_a_video_without_one(tmp_path: Path) -> None:
    model = _model_or_skip()
    _write_video(tmp_path / "square.mp4", frames=8)
    with pytest.raises(VideoError, match="no person detected"):
        detect_video(tmp_path / "square.mp4", pose_model=model)


def test_errors_are_kinemorph_errors() -> None:
    assert issubclass(VideoError, KinemorphError)


# --- command line -----------------------------------------------------------------------------


def test_cli_video_from_landmarks(walk_clip: LandmarkClip, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from kinemorph.cli import main

    save_landmarks(walk_clip, tmp_path / "lm.npz")
    out = tmp_path / "walk.bvh"
    rc = main(["video", str(tmp_path / "lm.npz"), "-o", str(out), "--fps", "60", "--save-landmarks",
               str(tmp_path / "copy.npz"), "--quiet"])  # fmt: skip
    assert rc == 0
    assert "root travel: image" in capsys.readouterr().out
    m = load_motion(out)
    assert m.fps == 60.0 and m.num_frames == 2 * walk_clip.num_frames - 1
    assert (tmp_path / "copy.npz").is_file()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: np.savez(p / "in.npz", landmarks=np.zeros((3, 32, 3))), "shape (T>0, 33, 3)"),
        (lambda p: np.savez(p / "in.npz", landmarks=np.full((3, 33, 3), np.nan)), "non-finite"),
        (lambda p: (p / "in.mp4").write_bytes(b"\x00" * 100), "not a readable video"),
        (lambda p: _write_video(p / "in.mp4"), "pose_landmarker"),
    ],
)
def test_cli_bad_input_is_one_line_and_writes_nothing(
    make: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kinemorph.cli import main

    monkeypatch.delenv(MODEL_ENV, raising=False)
    make(tmp_path)  # type: ignore[operator]
    before = sorted(p.name for p in tmp_path.iterdir())
    src = next(tmp_path.iterdir())
    rc = main(["video", str(src), "-o", str(tmp_path / "out.bvh"), "--save-landmarks", str(tmp_path / "lm2.npz")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("kinemorph: error: ") and message in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_level_undoes_a_tilted_camera(generated_walk: Motion) -> None:
    from kinemorph.video import Camera

    clip = synthetic_landmarks(generated_walk, noise=0.01, camera=Camera(pitch=np.radians(20.0)))
    tilted = solve_landmarks(clip)
    levelled = solve_landmarks(clip, config=SolverConfig(level=True))
    assert np.median(bone_errors(generated_walk, tilted.motion)) > 8.0
    assert np.median(bone_errors(generated_walk, levelled.motion)) < 5.0
    assert "levelled" in levelled.report.notes[0]
    src = generated_walk.positions[:, 0, :2] - generated_walk.positions[0, 0, :2]
    got = levelled.motion.positions[:, 0, :2] - levelled.motion.positions[0, 0, :2]
    assert np.median(np.linalg.norm(got - src, axis=1)) < 0.05


# --- app: the Motion page's video upload --------------------------------------------------------


def test_app_video_upload_opens_the_fitted_clip(walk_clip: LandmarkClip, tmp_path: Path) -> None:
    from kinemorph.app.page_motion import MotionPage
    from kinemorph.app.state import AppState

    save_landmarks(walk_clip, tmp_path / "walk lm.npz")
    state = AppState()
    page = MotionPage(state)
    text = page.upload_video("walk lm.npz", (tmp_path / "walk lm.npz").read_bytes())
    assert state.motion_key == "upload:walk_lm_video.bvh" and state.motion is not None
    assert state.motion.preset == "lafan1" and state.robot_key == "unitree_g1"
    assert "Video fit" in text and "root travel: image" in text
    assert "upload:walk_lm_video.bvh" in state.sources.motions()
    # the landmarks sit on the fitted skeleton: wrists on its hands, within the 1 cm noise
    f = 100
    lm = page.landmarks(f)
    hand = state.motion.positions[f, state.motion.index("LeftHand")]
    assert lm.shape == (33, 3) and np.linalg.norm(lm[INDEX["left_wrist"]] - hand) < 0.1
    page.open("upload:walk_lm_video.bvh")
    assert page.video is None and page.landmarks().shape == (0, 3)


def test_app_video_upload_refuses_bad_files_and_keeps_nothing(tmp_path: Path) -> None:
    from kinemorph.app.page_motion import MotionPage
    from kinemorph.app.sources import Sources, UploadError
    from kinemorph.app.state import AppState

    state = AppState(sources=Sources(max_upload_bytes=1000))
    page = MotionPage(state)
    with pytest.raises(UploadError, match="over the upload limit"):
        page.upload_video("big.mp4", b"x" * 2000)
    with pytest.raises(UploadError, match="expected a"):
        page.upload_video("clip.gif", b"x")
    with pytest.raises(VideoError, match="not a readable video"):
        page.upload_video("clip.mp4", b"\x00" * 100)
    assert state.motion is None and state.sources.motions() == state.sources.samples()


def test_app_video_upload_in_a_running_server(walk_clip: LandmarkClip, tmp_path: Path) -> None:
    pytest.importorskip("viser", reason="viser is not installed (pip install -e '.[app]')")
    from kinemorph.app.server import start_app

    save_landmarks(walk_clip, tmp_path / "walk.npz")
    app = start_app(port=0, verbose=False)
    try:
        page = app.motion_page
        worker = page.start_video("walk.npz", (tmp_path / "walk.npz").read_bytes())
        assert worker is not None
        worker.join(timeout=60)
        assert page.video_error == "" and page.video is not None
        assert page.landmarks_view is not None and page.view is not None
        assert app.state.motion_key == "upload:walk_video.bvh"
        bad = page.start_video("clip.mp4", b"\x00" * 100)
        assert bad is not None
        bad.join(timeout=60)
        assert "not a readable video" in page.video_error and page.notice.is_error
        assert app.state.motion_key == "upload:walk_video.bvh"  # the fitted clip stays open
    finally:
        app.stop()


def test_a_file_that_is_not_a_pose_model_is_one_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("mediapipe", reason="pose detection needs the [video] extra (mediapipe)")
    _write_video(tmp_path / "v.mp4")
    (tmp_path / "pose.task").write_text("not a model")
    with pytest.raises(VideoError, match="not a usable Pose Landmarker model"):
        convert(tmp_path / "v.mp4", tmp_path / "out.bvh", pose_model=tmp_path / "pose.task")
    assert not (tmp_path / "out.bvh").exists()
