#pragma once

#include <QWizardPage>

class QLabel;
class QPlainTextEdit;

namespace ddl::desktop {

// Step 5: the final JSON as it goes to the server, checked by the shared validator.
class ReviewPage : public QWizardPage
{
    Q_OBJECT
public:
    explicit ReviewPage(QWidget *parent = nullptr);
    void initializePage() override;
    bool validatePage() override;
    QString json() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();

    QPlainTextEdit *m_json;
    QLabel *m_problems;
};

} // namespace ddl::desktop
