#pragma once

#include "jobspec/jobspec.h"
#include "jobspec/specerror.h"

#include <QJsonObject>
#include <QTimer>
#include <QWidget>

#include <optional>

class QComboBox;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ddl::desktop {

class JsonHighlighter;

// One problem shown in the editor: the validator's error and where it sits in the text.
struct EditorProblem
{
    QString field;
    QString message;
    qsizetype offset = 0;
    int line = 0; // 1-based
};

// The JSON job editor: a form and the JSON text side by side, kept in sync both ways; the text
// is highlighted and validated as you type by shared/jobspec, every error marked on its line and
// listed by field path; templates, import and export (JSON, task.yaml).
class JobEditor : public QWidget
{
    Q_OBJECT
public:
    static constexpr int ValidateDelayMs = 250;

    explicit JobEditor(QWidget *parent = nullptr);

    QString text() const;
    void setText(const QString &text);
    void setSpec(const JobSpec &spec);
    void loadTemplate(const QString &id);
    // Validates now instead of after the typing pause.
    void validateNow();

    // The valid spec, or nothing while the text has errors.
    std::optional<JobSpec> spec() const { return m_spec; }
    QList<EditorProblem> problems() const { return m_problems; }
    QList<int> markedLines() const;
    QPlainTextEdit *textEdit() const { return m_text; }
    QLineEdit *jobNameEdit() const { return m_nameEdit; }
    QTableWidget *rolesTable() const { return m_roles; }
    QListWidget *problemList() const { return m_problemList; }
    // What the last OpenPAI config read (imported or pasted) kept without effect, and what the
    // current spec sets that has none here.
    QStringList notes() const;

    // File import and export, off the GUI thread; done() reports the outcome.
    void importFile(const QString &path);
    void exportFile(const QString &path);

signals:
    void validated(bool valid);
    void submitRequested(const ddl::JobSpec &spec);
    void fileDone(const QString &message);

private:
    void handleTextChanged();
    void handleFormChanged();
    void fillForm(const QJsonObject &object);
    void showProblems();
    // Text in one of OpenPAI's own forms (a v1 job JSON without "kind", with comments, or a
    // protocol v2 YAML) is read as such: replaced by its wire form, or its errors shown.
    bool readOpenPaiText(const QString &text);
    void addRoleRow(const QJsonObject &role);

    QComboBox *m_templateCombo;
    QComboBox *m_kindCombo;
    QLineEdit *m_nameEdit;
    QLineEdit *m_imageEdit;
    QSpinBox *m_retrySpin;
    QTableWidget *m_roles;
    QPlainTextEdit *m_text;
    JsonHighlighter *m_highlighter;
    QListWidget *m_problemList;
    QPushButton *m_submitButton;
    QTimer m_validateTimer;
    QJsonObject m_object; // the last text that parsed: keys the form does not show are kept
    std::optional<JobSpec> m_spec;
    QList<EditorProblem> m_problems;
    QStringList m_importNotes;
    bool m_syncing = false;
};

} // namespace ddl::desktop
