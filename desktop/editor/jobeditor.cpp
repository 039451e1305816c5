#include "jobeditor.h"

#include "editor/jobtemplates.h"
#include "editor/jsonhighlighter.h"
#include "editor/jsonlocator.h"
#include "editor/taskyamlwriter.h"
#include "jobspec/jobspecparser.h"
#include "jobspec/jsoncomments.h"

#include <QComboBox>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

namespace {
enum RoleColumn { RoleName, RoleTasks, RoleCpus, RoleMemory, RoleGpus, RoleCommand, RoleColumns };
const char *const RoleKeys[] = {"name", "taskNumber", "cpuNumber", "memoryMB", "gpuNumber",
                                "command"};
} // namespace

JobEditor::JobEditor(QWidget *parent)
    : QWidget(parent)
{
    m_templateCombo = new QComboBox(this);
    m_templateCombo->setObjectName(u"templateCombo"_s);
    m_templateCombo->addItem(tr("Start from a template…"));
    for (const JobTemplate &entry : JobTemplates::all())
        m_templateCombo->addItem(entry.title, entry.id);
    auto *importButton = new QPushButton(tr("Import…"), this);
    auto *exportButton = new QPushButton(tr("Export…"), this);
    m_submitButton = new QPushButton(tr("Submit…"), this);
    m_submitButton->setObjectName(u"editorSubmit"_s);

    m_kindCombo = new QComboBox(this);
    m_kindCombo->addItem(tr("DDL (main.py of a repository)"), u"ddl"_s);
    m_kindCombo->addItem(tr("OpenPAI (commands)"), u"openpai"_s);
    m_nameEdit = new QLineEdit(this);
    m_nameEdit->setObjectName(u"jobNameEdit"_s);
    m_imageEdit = new QLineEdit(this);
    m_retrySpin = new QSpinBox(this);
    m_retrySpin->setRange(0, 100);
    m_roles = new QTableWidget(0, RoleColumns, this);
    m_roles->setObjectName(u"rolesTable"_s);
    m_roles->setHorizontalHeaderLabels({tr("Role"), tr("Tasks"), tr("CPUs"), tr("Memory (MB)"),
                                        tr("GPUs"), tr("Command")});
    m_roles->horizontalHeader()->setStretchLastSection(true);
    m_roles->verticalHeader()->hide();
    auto *addRole = new QPushButton(tr("Add role"), this);
    auto *removeRole = new QPushButton(tr("Remove role"), this);

    auto *form = new QWidget(this);
    auto *formLayout = new QFormLayout(form);
    formLayout->addRow(tr("Kind:"), m_kindCombo);
    formLayout->addRow(tr("Job name:"), m_nameEdit);
    formLayout->addRow(tr("Image:"), m_imageEdit);
    formLayout->addRow(tr("Retries:"), m_retrySpin);
    formLayout->addRow(new QLabel(tr("Task roles:"), form));
    formLayout->addRow(m_roles);
    auto *roleButtons = new QHBoxLayout;
    roleButtons->addWidget(addRole);
    roleButtons->addWidget(removeRole);
    roleButtons->addStretch();
    formLayout->addRow(roleButtons);

    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(u"jsonText"_s);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_highlighter = new JsonHighlighter(m_text->document());
    m_problemList = new QListWidget(this);
    m_problemList->setObjectName(u"problemList"_s);
    m_problemList->setMaximumHeight(140);

    auto *toolbar = new QHBoxLayout;
    toolbar->addWidget(m_templateCombo);
    toolbar->addStretch();
    toolbar->addWidget(importButton);
    toolbar->addWidget(exportButton);
    toolbar->addWidget(m_submitButton);
    auto *splitter = new QSplitter(this);
    splitter->addWidget(form);
    splitter->addWidget(m_text);
    splitter->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(toolbar);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_problemList);

    m_validateTimer.setSingleShot(true);
    m_validateTimer.setInterval(ValidateDelayMs);
    connect(&m_validateTimer, &QTimer::timeout, this, &JobEditor::validateNow);
    connect(m_text, &QPlainTextEdit::textChanged, this, &JobEditor::handleTextChanged);
    connect(m_kindCombo, &QComboBox::currentIndexChanged, this, &JobEditor::handleFormChanged);
    connect(m_nameEdit, &QLineEdit::textEdited, this, &JobEditor::handleFormChanged);
    connect(m_imageEdit, &QLineEdit::textEdited, this, &JobEditor::handleFormChanged);
    connect(m_retrySpin, &QSpinBox::valueChanged, this, &JobEditor::handleFormChanged);
    connect(m_roles, &QTableWidget::itemChanged, this, &JobEditor::handleFormChanged);
    connect(addRole, &QPushButton::clicked, this, [this] {
        addRoleRow(QJsonObject{{"name"_L1, u"role%1"_s.arg(m_roles->rowCount() + 1)},
                               {"taskNumber"_L1, 1}, {"cpuNumber"_L1, 1},
                               {"memoryMB"_L1, 2048}, {"gpuNumber"_L1, 0}});
        handleFormChanged();
    });
    connect(removeRole, &QPushButton::clicked, this, [this] {
        if (m_roles->currentRow() >= 0) {
            m_roles->removeRow(m_roles->currentRow());
            handleFormChanged();
        }
    });
    connect(m_templateCombo, &QComboBox::activated, this, [this](int index) {
        if (index > 0)
            loadTemplate(m_templateCombo->itemData(index).toString());
        m_templateCombo->setCurrentIndex(0);
    });
    connect(m_problemList, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        QTextCursor cursor(m_text->document());
        cursor.setPosition(int(item->data(Qt::UserRole).toLongLong()));
        m_text->setTextCursor(cursor);
        m_text->setFocus();
    });
    connect(m_submitButton, &QPushButton::clicked, this, [this] {
        validateNow();
        if (m_spec)
            emit submitRequested(*m_spec);
    });
    connect(importButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Import a job"), {}, tr("Jobs (*.json *.yaml *.yml)"));
        if (!path.isEmpty())
            importFile(path);
    });
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export the job"), {}, tr("JSON (*.json);;DDL task.yaml (*.yaml)"));
        if (!path.isEmpty())
            exportFile(path);
    });

    loadTemplate(u"ddl-training"_s);
}

QString JobEditor::text() const
{
    return m_text->toPlainText();
}

void JobEditor::setText(const QString &text)
{
    m_text->setPlainText(text);
    validateNow();
}

void JobEditor::setSpec(const JobSpec &spec)
{
    setText(QString::fromUtf8(QJsonDocument(spec.toJson()).toJson(QJsonDocument::Indented)));
}

void JobEditor::loadTemplate(const QString &id)
{
    const QString text = JobTemplates::text(id);
    m_importNotes.clear();
    if (!text.isEmpty())
        setText(text);
}

void JobEditor::handleTextChanged()
{
    if (!m_syncing)
        m_validateTimer.start();
}

void JobEditor::handleFormChanged()
{
    if (m_syncing)
        return;
    QJsonObject object = m_object;
    object.insert("kind"_L1, m_kindCombo->currentData().toString());
    object.insert("jobName"_L1, m_nameEdit->text());
    if (m_imageEdit->text().isEmpty())
        object.remove("image"_L1);
    else
        object.insert("image"_L1, m_imageEdit->text());
    object.insert("retryCount"_L1, m_retrySpin->value());
    QJsonArray roles;
    for (int row = 0; row < m_roles->rowCount(); ++row) {
        QJsonObject role;
        for (int column = 0; column < RoleColumns; ++column) {
            const QTableWidgetItem *item = m_roles->item(row, column);
            const QString value = item ? item->text() : QString();
            if (column == RoleName || column == RoleCommand) {
                if (column == RoleName || !value.isEmpty())
                    role.insert(QLatin1String(RoleKeys[column]), value);
            } else {
                bool ok = false;
                const int number = value.toInt(&ok);
                // Not a number: kept as written, so the validator names the cell.
                role.insert(QLatin1String(RoleKeys[column]), ok ? QJsonValue(number)
                                                                 : QJsonValue(value));
            }
        }
        roles.append(role);
    }
    object.insert("taskRoles"_L1, roles);
    m_syncing = true;
    m_text->setPlainText(QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Indented)));
    m_syncing = false;
    validateNow();
}

void JobEditor::addRoleRow(const QJsonObject &role)
{
    const int row = m_roles->rowCount();
    m_roles->insertRow(row);
    for (int column = 0; column < RoleColumns; ++column) {
        const QJsonValue value = role.value(QLatin1String(RoleKeys[column]));
        const QString text = value.isDouble() ? QString::number(value.toInteger())
                                              : value.toString();
        m_roles->setItem(row, column, new QTableWidgetItem(text));
    }
}

void JobEditor::fillForm(const QJsonObject &object)
{
    m_syncing = true;
    const int kind = m_kindCombo->findData(object.value("kind"_L1).toString());
    if (kind >= 0)
        m_kindCombo->setCurrentIndex(kind);
    if (m_nameEdit->text() != object.value("jobName"_L1).toString())
        m_nameEdit->setText(object.value("jobName"_L1).toString());
    m_imageEdit->setText(object.value("image"_L1).toString());
    m_retrySpin->setValue(object.value("retryCount"_L1).toInt());
    m_roles->setRowCount(0);
    for (const QJsonValue &role : object.value("taskRoles"_L1).toArray())
        addRoleRow(role.toObject());
    m_syncing = false;
}

QStringList JobEditor::notes() const
{
    QStringList notes = m_importNotes;
    if (m_spec) {
        for (const QString &note : m_spec->noEffectNotes()) {
            if (!notes.contains(note))
                notes << note;
        }
    }
    return notes;
}

bool JobEditor::readOpenPaiText(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    bool openPai = false;
    if (parseError.error == QJsonParseError::NoError)
        openPai = document.isObject() && !document.object().contains("kind"_L1);
    else if (QJsonDocument::fromJson(JsonComments::strip(bytes).json).isObject())
        openPai = true; // JSON with comments
    else if (!text.trimmed().startsWith(u'{'))
        openPai = JobSpecParser::isPaiConfig(bytes); // protocol v2 YAML
    if (!openPai)
        return false;
    const SpecParseResult parsed = JobSpecParser::parsePaiConfigDetailed(bytes);
    if (parsed.ok()) {
        m_importNotes.clear();
        const QStringList specNotes = parsed.spec->noEffectNotes();
        for (const QString &note : parsed.notes) {
            if (!specNotes.contains(note))
                m_importNotes << note;
        }
        setSpec(*parsed.spec);
        return true;
    }
    const JsonLocator locator(text);
    const bool json = text.trimmed().startsWith(u'{');
    for (const SpecError &error : parsed.errors) {
        EditorProblem problem;
        problem.field = error.field;
        problem.message = error.message;
        problem.offset = json ? locator.offsetOf(error.field) : 0;
        problem.line = m_text->document()->findBlock(int(problem.offset)).blockNumber() + 1;
        m_problems.append(problem);
    }
    showProblems();
    m_submitButton->setEnabled(false);
    emit validated(false);
    return true;
}

void JobEditor::validateNow()
{
    m_validateTimer.stop();
    const QString text = m_text->toPlainText();
    m_problems.clear();
    m_spec.reset();
    if (readOpenPaiText(text))
        return;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        EditorProblem problem;
        // The parser counts bytes of UTF-8; for the marker, characters are close enough.
        problem.offset = std::min<qsizetype>(parseError.offset, text.size());
        problem.message = parseError.error != QJsonParseError::NoError
                              ? tr("JSON syntax: %1").arg(parseError.errorString())
                              : tr("the job must be a JSON object { ... }");
        m_problems.append(problem);
    } else {
        m_object = document.object();
        fillForm(m_object);
        const SpecParseResult parsed = JobSpecParser::parseWireDetailed(m_object);
        const JsonLocator locator(text);
        for (const SpecError &error : parsed.errors) {
            EditorProblem problem;
            problem.field = error.field;
            problem.message = error.message;
            problem.offset = locator.offsetOf(error.field);
            m_problems.append(problem);
        }
        if (parsed.ok())
            m_spec = parsed.spec;
    }
    for (EditorProblem &problem : m_problems)
        problem.line = m_text->document()->findBlock(int(problem.offset)).blockNumber() + 1;
    showProblems();
    m_submitButton->setEnabled(m_spec.has_value());
    emit validated(m_spec.has_value());
}

QList<int> JobEditor::markedLines() const
{
    QList<int> lines;
    for (const QTextEdit::ExtraSelection &selection : m_text->extraSelections())
        lines.append(selection.cursor.blockNumber() + 1);
    return lines;
}

void JobEditor::showProblems()
{
    QList<QTextEdit::ExtraSelection> selections;
    m_problemList->clear();
    for (const EditorProblem &problem : std::as_const(m_problems)) {
        QTextEdit::ExtraSelection selection;
        selection.format.setBackground(QColor(0xff, 0xe0, 0xe0));
        selection.format.setProperty(QTextFormat::FullWidthSelection, true);
        selection.format.setToolTip(problem.message);
        selection.cursor = QTextCursor(m_text->document()->findBlockByNumber(problem.line - 1));
        selections.append(selection);
        const QString where = problem.field.isEmpty() ? QString() : problem.field + u": "_s;
        auto *item = new QListWidgetItem(tr("line %1: %2%3").arg(problem.line).arg(where,
                                                                                  problem.message),
                                         m_problemList);
        item->setData(Qt::UserRole, problem.offset);
        item->setForeground(QColor(0xcf, 0x22, 0x2e));
    }
    if (m_problems.isEmpty())
        new QListWidgetItem(tr("The job is valid."), m_problemList);
    for (const QString &note : notes()) {
        auto *item = new QListWidgetItem(tr("note: %1").arg(note), m_problemList);
        item->setForeground(palette().color(QPalette::PlaceholderText));
    }
    m_text->setExtraSelections(selections);
}

void JobEditor::importFile(const QString &path)
{
    auto *watcher = new QFutureWatcher<QByteArray>(this);
    connect(watcher, &QFutureWatcher<QByteArray>::finished, this, [this, watcher, path] {
        watcher->deleteLater();
        const QByteArray bytes = watcher->result();
        const QFileInfo info(path);
        m_importNotes.clear();
        if ((info.suffix() == u"yaml"_s || info.suffix() == u"yml"_s) &&
            !JobSpecParser::isPaiConfig(bytes)) {
            const SpecParseResult parsed =
                JobSpecParser::parseTaskYamlDetailed(bytes, info.dir().dirName());
            if (!parsed.ok()) {
                QStringList lines;
                for (const SpecError &error : parsed.errors)
                    lines << error.toString();
                emit fileDone(tr("%1 is not a valid task.yaml:\n%2").arg(path,
                                                                       lines.join(u'\n')));
                return;
            }
            setSpec(*parsed.spec);
        } else {
            // An OpenPAI config (v1 JSON, v2 YAML) is recognised by its content and given the
            // wire form; one with errors stays as written, its errors listed.
            setText(QString::fromUtf8(bytes));
        }
        emit fileDone(tr("Imported %1").arg(path));
    });
    watcher->setFuture(QtConcurrent::run([path] {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.read(4 * 1024 * 1024) : QByteArray();
    }));
}

void JobEditor::exportFile(const QString &path)
{
    validateNow();
    const bool yaml = path.endsWith(u".yaml"_s) || path.endsWith(u".yml"_s);
    if (yaml && (!m_spec || m_spec->kind != JobSpec::Kind::Ddl)) {
        emit fileDone(tr("Only a valid DDL job can be written as task.yaml."));
        return;
    }
    const QByteArray bytes = yaml ? TaskYamlWriter::write(*m_spec) : text().toUtf8();
    auto *watcher = new QFutureWatcher<bool>(this);
    connect(watcher, &QFutureWatcher<bool>::finished, this, [this, watcher, path] {
        watcher->deleteLater();
        emit fileDone(watcher->result() ? tr("Saved %1").arg(path)
                                        : tr("Could not write %1").arg(path));
    });
    watcher->setFuture(QtConcurrent::run([path, bytes] {
        QSaveFile file(path);
        return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size()
               && file.commit();
    }));
}

} // namespace ddl::desktop
