#pragma once

#include <QWizardPage>

class QFormLayout;
class QLineEdit;
class QSpinBox;

namespace ddl::desktop {

// Step 4: name and resources: how many tasks (workers), and per task GPUs, CPUs and memory;
// retries. For a job of several task roles these apply to the first; the editor has the rest.
class ResourcesPage : public QWizardPage
{
    Q_OBJECT
public:
    explicit ResourcesPage(QWidget *parent = nullptr);
    void initializePage() override;

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();

    QFormLayout *m_form;
    QLineEdit *m_name;
    QSpinBox *m_workers;
    QSpinBox *m_gpus;
    QSpinBox *m_cpus;
    QSpinBox *m_memory;
    QSpinBox *m_retries;
    bool m_initialised = false;
};

} // namespace ddl::desktop
