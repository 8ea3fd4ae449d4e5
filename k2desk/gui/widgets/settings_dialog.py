"""Settings: the model (k2desk's, one another app downloaded, or any GGUF file) and its calibration,
GPU layers, threads, summarizer backend, data folder and team server."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from k2desk.config import BUILD_PROFILES, GRAPH_EXTRACTORS, SUMMARIZER_BACKENDS, Settings
from k2desk.errors import K2Error, UsageError
from k2desk.runtime.models import ModelStore
from k2desk.store.address import check_server_address


def _mib(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB" if size else ""


def save(settings: Settings) -> None:
    """``settings.save()``, except that a bundle's own models folder (a temporary folder for the
    one-file build) is not written down: the next start finds its own again."""
    settings.save()
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle and str(settings.models_dir).startswith(str(bundle)):
        data = json.loads(settings.settings_file.read_text(encoding="utf-8"))
        data.pop("models_dir", None)
        settings.settings_file.write_text(json.dumps(data, indent=2), encoding="utf-8")


def describe_model(settings: Settings) -> str:
    """What writes the answers with ``settings``, whether they are checked and whose calibration
    decides them, in a line or two."""
    from k2desk.engine import reader_llm_name, role_calibration, verify_answers

    if settings.llm_url:
        return (f"The server at {settings.llm_url} writes the answers; the answer checks are off (no calibration "
                "for a server's model: conservative defaults).")
    reader = Path(str(reader_llm_name(settings))).name
    try:
        cal = role_calibration(settings, "reader")
    except (K2Error, OSError):
        return f"Writes the answers: {reader}."
    if cal.calibrated and verify_answers(settings):
        return f"Writes the answers: {reader}, its answers checked with its calibration ({cal.date})."
    return (f"Writes the answers: {reader}. The answer checks are off: no calibration for this model yet "
            "(conservative defaults). Calibrate fits one in the background.")


def calibrated_note(settings: Settings, path: str) -> str:
    """", calibrated: 31 of 40 answerable right, …" beside a model's name ("" without a record)."""
    from k2desk.eval.calibrate import summary
    from k2desk.runtime import calibration

    try:
        cal = calibration.find(Path(path), settings.home)
    except OSError:
        return ""
    if not cal.calibrated or not cal.path:
        return ""
    try:
        report = json.loads(Path(cal.path).read_text(encoding="utf-8")).get("report") or {}
    except (OSError, ValueError):
        report = {}
    return f", calibrated: {summary(report)}" if summary(report) else ", calibrated"


def check_loads(path: Path) -> None:
    """Load a GGUF once with a small context (memory-mapped: seconds even for a 7B): a ModelError
    with one line where it does not load."""
    from k2desk.runtime.llm import LLM

    LLM(path, n_ctx=256, threads=1, gpu_layers=0).close()


class SettingsDialog(QDialog):
    """``accept()`` validates, saves ``settings.json`` in the data folder and keeps ``result_settings``;
    Calibrate asks the window to calibrate the chosen model in the background (``calibrate``)."""

    calibrate = Signal(str)  # the model's name or path

    def __init__(self, settings: Settings, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("k2desk settings")
        self.setMinimumWidth(560)
        self.settings = settings
        self.result_settings: Optional[Settings] = None

        self.model = QComboBox()
        self._fill_models()
        browse_model = QPushButton("Use a model file…")
        browse_model.setToolTip("Any GGUF model (a Mistral-7B, a Llama): it is loaded once to check it, then it "
                                "answers every question")
        browse_model.clicked.connect(self.browse_model)
        self.calibrate_button = QPushButton("Calibrate")
        self.calibrate_button.setToolTip("Fit the thresholds that decide whether this model's answers are given, "
                                         "cautioned or declined, on k2desk's calibration set (in the background: "
                                         "minutes on a GPU, 10-40 on a CPU; it can be cancelled and resumes)")
        self.calibrate_button.clicked.connect(self._calibrate)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(browse_model)
        model_row.addWidget(self.calibrate_button)
        self.model_note = QLabel("")  # what writes the answers with this choice, and whether they are checked
        self.model_note.setWordWrap(True)
        self.model_note.setStyleSheet("color: #5b6775;")
        self.model.currentIndexChanged.connect(self._describe_model)

        self.gpu_layers = QSpinBox()
        self.gpu_layers.setRange(-1, 999)
        self.gpu_layers.setSpecialValueText("all (-1)")
        self.gpu_layers.setValue(settings.gpu_layers)
        self.gpu_layers.setToolTip("Layers offloaded to the GPU when llama.cpp was built with a GPU backend; 0: CPU only")
        self.threads = QSpinBox()
        self.threads.setRange(0, 256)
        self.threads.setSpecialValueText("automatic")
        self.threads.setValue(settings.threads or 0)
        self.llm_url = QLineEdit(settings.llm_url)
        self.llm_url.setPlaceholderText("none: the model above runs here")
        self.llm_url.setToolTip("An OpenAI-compatible server that answers instead (llama-server, Ollama, LM Studio, vLLM), "
                                "e.g. http://127.0.0.1:8080 or your GPU machine; only this address is contacted")
        self.graph_extractor = QComboBox()
        self.graph_extractor.addItems(GRAPH_EXTRACTORS)
        self.graph_extractor.setCurrentText(settings.graph_extractor)
        self.graph_extractor.setToolTip("How the knowledge graph is extracted. fast: spaCy, no LLM (seconds); llm: one "
                                        "LLM call per chunk (deep, slow on a CPU); auto: llm on a GPU, else fast")
        self.summarizer = QComboBox()
        self.summarizer.addItems(SUMMARIZER_BACKENDS)
        self.summarizer.setCurrentText(settings.summarizer)
        self.profile = QComboBox()
        self.profile.addItems(BUILD_PROFILES)
        self.profile.setCurrentText(settings.build_profile)
        self.profile.setToolTip("What indexing builds. default: raw-text index + K²RAG's summaries and graph; "
                                "naive: raw-text index only (semantic, keyword, hybrid); "
                                "both: also the raw-text graph (the kg baseline; slow with the llm graph extractor)")
        self.data_folder = QLineEdit(str(settings.home))
        browse_data = QPushButton("Browse…")
        browse_data.clicked.connect(self.browse_data)
        data_row = QHBoxLayout()
        data_row.addWidget(self.data_folder, 1)
        data_row.addWidget(browse_data)
        self.store = QLineEdit(settings.store)
        self.store.setPlaceholderText("none: collections on this computer")
        self.store.setToolTip("A PostgreSQL server with pgvector that keeps a team's collections, e.g. "
                              "postgresql://ann@db.example/team; keep its password in ~/.pgpass or PGPASSWORD")

        form = QFormLayout()
        form.addRow("Model (GGUF)", model_row)
        form.addRow("", self.model_note)
        form.addRow("LLM server", self.llm_url)
        form.addRow("GPU layers", self.gpu_layers)
        form.addRow("Threads", self.threads)
        form.addRow("Summarizer", self.summarizer)
        form.addRow("Graph extractor", self.graph_extractor)
        form.addRow("Index profile", self.profile)
        form.addRow("Data folder", data_row)
        form.addRow("Team server", self.store)
        form.addRow("Models folder", QLabel(str(settings.models_dir)))
        self.error = QLabel("")
        self.error.setStyleSheet("color: #b3261e;")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self._describe_model()
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def _fill_models(self) -> None:
        try:
            rows = [r for r in ModelStore(self.settings.models_dir).status() if r["role"] == "llm"]
        except K2Error as exc:
            rows = []
            self.model.setToolTip(str(exc))
        for r in rows:
            label = f"{r['name']}  —  {r.get('purpose') or ''} {_mib(r.get('size', 0))}".rstrip()
            if not r.get("present"):
                label += "  (not prepared)"
            self.model.addItem(label, r["name"])
        self._fill_found({Path(r["path"]).resolve() for r in rows})
        if self.model.findData(self.settings.llm) < 0:
            self.model.addItem(str(self.settings.llm), self.settings.llm)
        self.model.setCurrentIndex(self.model.findData(self.settings.llm))

    def _fill_found(self, known: set) -> None:
        """The GGUF models other apps keep on this machine, each with its header's facts and its
        calibration's result; a broken one listed, greyed, with why."""
        from k2desk.runtime.discover import discover

        try:
            found = [f for f in discover(self.settings.model_folders) if Path(f.path).resolve() not in known]
        except OSError:
            return
        for f in found:
            if f.broken:
                self.model.addItem(f"{f.name}  —  {f.app}: broken, {f.broken}", f.path)
                item = self.model.model().item(self.model.count() - 1)
                item.setEnabled(False)
                continue
            facts = " ".join(x for x in (f.architecture, f.params_text(), f.quantization) if x)
            context = f"{f.context_length:,} ctx" + ("" if f.chat_template else ", no chat template")
            self.model.addItem(f"{f.name}  —  {f.app}, {facts}, {context}, {f.size / 2**30:.1f} GiB"
                               f"{calibrated_note(self.settings, f.path)}", f.path)
            self.model.setItemData(self.model.count() - 1, f.path, Qt.ItemDataRole.ToolTipRole)

    def _calibrate(self) -> None:
        if not self.llm_url.text().strip():
            self.calibrate.emit(self._chosen_model())
            self.calibrate_button.setEnabled(False)
            self.calibrate_button.setText("Calibrating…")

    def _chosen_model(self) -> str:
        return str(self.model.currentData() or self.model.currentText())

    def _describe_model(self) -> None:
        self.model_note.setText(describe_model(replace(self.settings, llm=self._chosen_model())))

    def browse_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model", str(self.settings.models_dir),
                                              "GGUF models (*.gguf);;All files (*)")
        if path:
            self.select_model(path)

    def select_model(self, name_or_path: str) -> None:
        if self.model.findData(name_or_path) < 0:
            self.model.addItem(name_or_path, name_or_path)
        self.model.setCurrentIndex(self.model.findData(name_or_path))

    def browse_data(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Data folder (collections, settings)", self.data_folder.text())
        if folder:
            self.data_folder.setText(folder)

    def values(self) -> Settings:
        """The edited settings, validated (raises K2Error with a readable message)."""
        llm = self._chosen_model()
        home = Path(self.data_folder.text().strip() or str(self.settings.home)).expanduser()
        new = replace(self.settings, llm=llm, gpu_layers=self.gpu_layers.value(), threads=self.threads.value() or None,
                      summarizer=self.summarizer.currentText(), graph_extractor=self.graph_extractor.currentText(),
                      llm_url=self.llm_url.text().strip(), build_profile=self.profile.currentText(), home=home,
                      store=self.store.text().strip())
        if new.store:
            check_server_address(new.store)  # its form only: the dialog does not wait on the network
        if not new.llm_url:
            store = ModelStore(new.models_dir)
            path = store.resolve_llm(llm)  # a clear error now rather than at the first question
            if llm != self.settings.llm and not any(e.name == llm for e in store.entries):
                from k2desk.runtime.discover import check_memory

                check_memory(path, new.n_ctx, new.gpu_layers)  # one line, before a load that cannot fit
                check_loads(path)  # a file of the person's own: loaded once, so a broken one is one line now
        try:
            home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot use {home} as the data folder: {exc.strerror or exc}") from exc
        return new

    def accept(self) -> None:
        try:
            new = self.values()
            save(new)
        except K2Error as exc:
            self.error.setText(str(exc))
            return
        except OSError as exc:
            self.error.setText(f"cannot save the settings: {exc}")
            return
        self.result_settings = new
        super().accept()
