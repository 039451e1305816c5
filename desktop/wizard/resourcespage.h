#pragma once

#include <QWizardPage>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace ddl::desktop {

// Step 4: what runs and with what: the kind (a DDL project's main() or a command, as OpenPAI
// runs), the command, the name; how many tasks (workers), and per task GPUs, CPUs and memory;
// retries. Filled from the job the wizard starts from (the project's task.yaml when it has one).
// For a job of several task roles these apply to the first; the editor has the rest.
class ResourcesPage : public QWizardPage
{
    Q_OBJECT
public:
    explicit ResourcesPage(QWidget *parent = nullptr);
    void initializePage() override;
    bool validatePage() override;

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void showKind();

    QFormLayout *m_form;
    QComboBox *m_kind;
    QLineEdit *m_command;
    QLabel *m_problem;
    QLineEdit *m_name;
    QSpinBox *m_workers;
    QSpinBox *m_gpus;
    QSpinBox *m_cpus;
    QSpinBox *m_memory;
    QSpinBox *m_retries;
    int m_shownGeneration = -1; // the wizard's job these fields were filled from
};

} // namespace ddl::desktop
