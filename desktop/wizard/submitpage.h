#pragma once

#include <QPointer>
#include <QWizardPage>

class QLabel;
class QProgressBar;
class QPushButton;

namespace ddl::desktop {

class JobSubmission;

// Step 6: packaging, uploads and the submit itself, with progress and a Cancel; uploads that
// were cut short resume when the job is submitted again.
class SubmitPageWidget : public QWizardPage
{
    Q_OBJECT
public:
    explicit SubmitPageWidget(QWidget *parent = nullptr);
    void initializePage() override;
    void cleanupPage() override;
    bool isComplete() const override;
    JobSubmission *submission() const;
    QString statusText() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void start();

    QLabel *m_stage;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QPointer<JobSubmission> m_submission;
    bool m_done = false;
};

} // namespace ddl::desktop
